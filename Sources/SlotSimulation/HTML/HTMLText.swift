import Foundation

/// What every page the simulator writes shares: escaping, and the frame around a page's body.
enum HTMLText {
    /// Text for HTML: the five characters that could end an element or an attribute, escaped.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// A self-contained page: `title` as its heading, `summary` (a run's text) below it, then
    /// `body`; `style` adds the page's own CSS rules to the shared ones.
    static func page(title: String, summary: String, style: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">\(OutputKind.pageMark)<title>\(escape(title))</title>
        <style>
        body{font:14px system-ui,sans-serif;margin:24px;color:#222}
        h1{font-size:20px} h2{font-size:16px;margin-top:28px}
        pre{background:#f6f6f6;padding:8px;font-size:12px;overflow:auto;max-height:240px}
        .legend span{display:inline-block;margin-right:12px}
        .sw{display:inline-block;width:12px;height:12px;vertical-align:middle;margin-right:4px}
        \(style)
        </style></head><body>
        <h1>\(escape(title))</h1>
        <pre>\(escape(summary))</pre>
        \(body)</body></html>

        """
    }
}
