import Foundation
import JWTKit
import SlotScheduler

/// How bearer tokens are checked (`--auth`), and the user a token names.
///
/// - `hs256:FILE`: JWTs signed with HMAC-SHA256 under the secret in `FILE` (at least 32 bytes,
///   trailing whitespace dropped, so a file written by `openssl rand -base64 32 > FILE` works);
/// - `jwks:FILE`: JWTs signed with one of the public keys of the JSON Web Key Set in `FILE`
///   (RS256, ES256, …), chosen by the token's `kid`;
/// - `none`: a demonstration: a token's payload is read without checking its signature (so
///   anyone can act as anyone), logged loudly at start. There is still one identity path: the
///   user is the token's `sub`, and `exp` is still checked.
///
/// In every mode the token must carry `sub` (the user id in decimal, without leading zeros: one
/// user has one subject) and `exp` (seconds since 1970, after the present); an `nbf` must not be
/// after the present. jwt-kit binds each key to its algorithm, so a token signed with an HMAC
/// over a public key, or with `alg: none`, does not verify; a header naming another algorithm,
/// or with `crit`, is refused too, and so is a header or payload naming a member twice (which
/// value counts differs from reader to reader: `{"sub":"2","sub":"1"}` was user 2 here and may
/// be user 1 to a gateway in front; RFC 7519 §4 allows refusing it).
struct TokenVerifier: Sendable {
    enum Mode: String, Sendable {
        case hs256
        case jwks
        case none
    }

    let mode: Mode
    private let keys: JWTKeyCollection

    /// The smallest HS256 secret taken: the hash's size (RFC 7518 §3.2).
    static let minimumSecretBytes = 32

    /// Reads `--auth`'s value; a clear error (naming the option and the file) for anything else.
    static func make(_ option: String) async throws(AuthOptionError) -> TokenVerifier {
        if option == "none" { return TokenVerifier(mode: .none, keys: JWTKeyCollection()) }
        guard let colon = option.firstIndex(of: ":"), let mode = Mode(rawValue: String(option[..<colon])),
            mode != .none
        else { throw AuthOptionError(option, "expected hs256:SECRET_FILE, jwks:JWKS_FILE or none") }
        let path = String(option[option.index(after: colon)...])
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthOptionError(option, "cannot read \(path)")
        }
        let keys = JWTKeyCollection()
        switch mode {
        case .hs256:
            let secret = Array(data.reversed().drop { Character(UnicodeScalar($0)).isWhitespace }.reversed())
            guard secret.count >= minimumSecretBytes else {
                throw AuthOptionError(
                    option,
                    "the secret in \(path) has \(secret.count) bytes; HS256 needs at least \(minimumSecretBytes)")
            }
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        case .jwks:
            do { try await keys.add(jwksJSON: String(decoding: data, as: UTF8.self)) } catch {
                throw AuthOptionError(option, "\(path) is not a JSON Web Key Set whose keys have a kid: \(error)")
            }
        case .none:
            break
        }
        return TokenVerifier(mode: mode, keys: keys)
    }

    /// The user `token` names, if it verifies at `now`.
    func user(from token: String, at now: Date) async throws(TokenProblem) -> UserID {
        let claims: UserClaims
        do {
            if mode == .none {
                claims = try await keys.unverified(token, as: UserClaims.self)
            } else {
                claims = try await keys.verify(token, as: UserClaims.self)
            }
        } catch let error as JWTError {
            throw Self.problem(error)
        } catch {
            throw .unreadable
        }
        // What jwt-kit does not check in the header: the algorithm it names must be the key's
        // (HS256 under `hs256`; a JWKS key is bound to its own), and `crit`, which names
        // extensions a recipient must understand or refuse (RFC 7515 §4.1.11), must be absent:
        // the service understands none.
        guard let header = try? DefaultJWTParser().parse(Array(token.utf8), as: UserClaims.self).header,
            header.crit == nil, mode != .hs256 || header.alg == "HS256", !Self.namesAMemberTwice(token)
        else { throw .unreadable }
        // Checked here as well as in `UserClaims.verify`, which `unverified` does not call.
        guard claims.exp.value > now else { throw .expired }
        if let notBefore = claims.nbf, notBefore.value > now { throw .notYetValid }
        let subject = claims.sub.value
        guard !subject.isEmpty, subject.utf8.count <= 20, subject.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            subject == "0" || !subject.hasPrefix("0"), let user = UInt64(subject)
        else { throw .badSubject }
        return UserID(user)
    }

    /// Whether the header or the payload of `token` (already parsed by jwt-kit) names a member
    /// twice, at any depth (``JSONSyntax``).
    static func namesAMemberTwice(_ token: String) -> Bool {
        token.split(separator: ".", omittingEmptySubsequences: false).prefix(2).contains { segment in
            var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let json = Data(base64Encoded: base64) else { return true }
            return JSONSyntax.problem(in: json) != nil
        }
    }

    private static func problem(_ error: JWTError) -> TokenProblem {
        switch error.errorType {
        case .signatureVerificationFailed: .badSignature
        case .claimVerificationFailure: .expired
        default: .unreadable
        }
    }
}

/// The claims a token must carry: the user and the expiry; and a start, when it has one. Others
/// are ignored.
struct UserClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// A `--auth` value the service cannot use: which value, and why.
struct AuthOptionError: Error, CustomStringConvertible {
    var option: String
    var why: String

    init(_ option: String, _ why: String) {
        self.option = option
        self.why = why
    }

    var description: String { "--auth \(option): \(why)" }
}
