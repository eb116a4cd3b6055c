#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

func _sinSquared(_ x: Double) -> Double {
    let s = sin(x)
    return s * s
}
func _cos(_ x: Double) -> Double { cos(x) }
func _asin(_ x: Double) -> Double { asin(x) }
