import ArgumentParser
import Foundation
import OTel
import ServiceLifecycle

/// `--otlp-endpoint URL`: every request's span (Hummingbird's `TracingMiddleware`) and the
/// store's spans under it (`ObservedBookingService`) exported over OTLP/HTTP (protobuf) by
/// swift-otel, batched, to a collector such as the OpenTelemetry Collector or Jaeger. Only
/// traces: metrics stay with `/metrics` (Prometheus) and logs with the process's output.
enum TraceExport {
    /// Bootstraps the tracer and returns the service that batches and exports its spans (run it
    /// in the service group before the server, so that it stops after it and sends the last spans).
    static func bootstrap(endpoint: String) throws -> some Service {
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--otlp-endpoint must be an http(s) URL, such as http://127.0.0.1:4318/v1/traces")
        }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "BookingService"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = endpoint
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        do { return try OTel.bootstrap(configuration: configuration) } catch {
            throw ValidationError("--otlp-endpoint \(endpoint): \(error)")
        }
    }
}
