//! `cargo kernel-lint lsp` driven as an editor drives it: JSON-RPC with Content-Length framing
//! on the server's stdin and stdout.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// An array-of-structs kernel: one KL002 on `p[i].x`, after a non-ASCII comment on its line.
const KERNEL: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Particle {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub w: f32,
}

#[kernel]
pub unsafe fn scale(p: &[Particle], out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *out.add(i) = /* é𝛼 */ p[i].x * 2.0;
    }
}
"#;

/// Long enough for a slow machine; a hung server fails the test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(120);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Every `window/logMessage` text received so far.
    logs: Vec<String>,
}

impl Client {
    fn start(dir: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
            .arg("lsp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            incoming,
            next_id: 0,
            logs: Vec::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        let body = serde_json::to_string(message).expect("JSON");
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("the server reads");
        stdin.flush().expect("flushed");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The whole response to a request (its `result` or its `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait_for(|m| m["id"] == id && m.get("method").is_none())
    }

    /// The next message that `wanted` accepts; the log messages on the way are kept.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self
                .incoming
                .recv_timeout(PATIENCE)
                .expect("the server answers before the patience runs out");
            if message["method"] == "window/logMessage" {
                self.logs
                    .push(message["params"]["message"].as_str().expect("text").to_string());
            }
            if wanted(&message) {
                return message;
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let message = self.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri);
        message["params"]["diagnostics"].as_array().expect("a list").clone()
    }

    /// `shutdown` then `exit`, as an editor closes: the server must exit with 0.
    fn shut_down_cleanly(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        assert_eq!(self.exit_code(), 0);
    }

    /// Closes the pipe and waits for the exit code.
    fn exit_code(mut self) -> i32 {
        drop(self.stdin.take());
        self.child
            .wait()
            .expect("the server ends")
            .code()
            .expect("an exit code")
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"particles\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .expect("written");
    std::fs::create_dir(dir.path().join("src")).expect("created");
    std::fs::write(dir.path().join("src/lib.rs"), format!("pub mod other;\n{KERNEL}")).expect("written");
    std::fs::write(dir.path().join("src/other.rs"), "pub const WIDTH: usize = 4;\n").expect("written");
    dir
}

fn uri(path: &Path) -> String {
    let path = std::fs::canonicalize(path).expect("exists");
    format!("file://{}", path.display())
}

/// The protocol position of the first `needle` of `text`, in UTF-16 code units or UTF-8 bytes.
fn position(text: &str, needle: &str, utf16: bool) -> Value {
    let offset = text.find(needle).expect("present");
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let character = if utf16 {
        before.encode_utf16().count()
    } else {
        before.len()
    };
    json!({ "line": text[..offset].matches('\n').count(), "character": character })
}

/// The byte offset of a UTF-16 protocol position.
fn offset(text: &str, at: &Value) -> usize {
    let line = at["line"].as_u64().expect("line") as usize;
    let line_start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = at["character"].as_u64().expect("character") as usize;
    let mut offset = line_start;
    for c in text[line_start..].chars() {
        if units == 0 {
            break;
        }
        units -= c.len_utf16();
        offset += c.len_utf8();
    }
    offset
}

/// `text` with the edits of one file applied, as an editor applies a workspace edit.
fn apply(text: &str, edits: &[Value]) -> String {
    let mut ranged: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().expect("text"),
            )
        })
        .collect();
    ranged.sort_by_key(|&(start, ..)| std::cmp::Reverse(start));
    let mut out = text.to_string();
    for (start, end, new) in ranged {
        out.replace_range(start..end, new);
    }
    out
}

fn initialize(client: &mut Client, dir: &Path, capabilities: Value) -> Value {
    let response = client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(dir), "capabilities": capabilities }),
    );
    client.notify("initialized", json!({}));
    response
}

fn open(client: &mut Client, uri: &str, text: &str) {
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "rust", "version": 1, "text": text } }),
    );
}

fn change(client: &mut Client, uri: &str, version: i64, text: &str) {
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
    );
}

/// The log line of the last analysis, its time left out.
fn analyzed(logs: &[String]) -> String {
    let last = logs
        .iter()
        .rev()
        .find(|l| l.starts_with("analyzed "))
        .expect("an analysis logged");
    let (count, rest) = last.split_once(" in ").expect("a time");
    let (_, kept) = rest.split_once("; ").expect("the workspace kept");
    format!("{count}; {kept}")
}

#[test]
fn an_editor_session_from_initialize_to_exit() {
    let dir = workspace();
    let lib = dir.path().join("src/lib.rs");
    let lib_uri = uri(&lib);
    let text = std::fs::read_to_string(&lib).expect("read");
    let mut client = Client::start(dir.path());

    let init = initialize(&mut client, dir.path(), json!({}));
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16");
    assert_eq!(capabilities["textDocumentSync"]["change"], 1);
    assert_eq!(
        capabilities["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert_eq!(capabilities["hoverProvider"], true);

    open(&mut client, &lib_uri, &text);
    let diagnostics = client.diagnostics(&lib_uri);
    assert_eq!(
        analyzed(&client.logs),
        "analyzed 1 file (src/lib.rs: 1 of 1 kernel); workspace of 2 files kept"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let finding = &diagnostics[0];
    assert_eq!(finding["code"], "KL002");
    assert_eq!(finding["source"], "kernel-lint");
    assert_eq!(finding["severity"], 2);
    // The columns count UTF-16 units past `é𝛼` (1 + 2 units, 2 + 4 bytes).
    let start = position(&text, "p[i].x", true);
    assert_eq!(start, json!({ "line": 17, "character": 32 }));
    assert_eq!(
        finding["range"],
        json!({ "start": start, "end": position(&text, " * 2.0", true) })
    );
    assert!(
        finding["message"]
            .as_str()
            .expect("text")
            .starts_with("array-of-structs access `p[i].x`: a 4-byte field of the 16-byte `Particle`"),
        "{finding}"
    );

    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": lib_uri }, "position": position(&text, "i].x", true) }),
    );
    assert_eq!(
        hover["result"]["contents"],
        json!({
            "kind": "markdown",
            "value": "**aos** load of `p[i]` (4 bytes) in kernel `scale`\n\n\
                      each request of a warp touches 16 sectors of 32 bytes (ideal 4), efficiency 25 %\n\n\
                      launch assumed: block (256, 1, 1), the default (nothing says otherwise)\n"
        })
    );
    // Anywhere on the underlined span (the field after the brackets) shows the same.
    let on_field = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": lib_uri }, "position": position(&text, "x * 2.0", true) }),
    );
    assert_eq!(on_field["result"]["contents"], hover["result"]["contents"]);
    // Off any access there is nothing to show.
    let nothing = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": lib_uri }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(nothing["result"], Value::Null);

    let actions = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": lib_uri },
            "range": finding["range"],
            "context": { "diagnostics": [finding] },
        }),
    );
    let actions = actions["result"].as_array().expect("a list").clone();
    assert_eq!(actions.len(), 1, "{actions:?}");
    let action = &actions[0];
    assert_eq!(action["title"], "pass `p` as one slice per field of `Particle`");
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], "KL002");
    let changes = action["edit"]["changes"].as_object().expect("edits by file");
    assert_eq!(changes.keys().collect::<Vec<_>>(), [&lib_uri]);
    let fixed = apply(&text, changes[&lib_uri].as_array().expect("edits"));
    assert!(
        fixed.contains("pub unsafe fn scale(p_x: &[f32], out: *mut f32, n: usize)"),
        "{fixed}"
    );
    assert!(fixed.contains("/* é𝛼 */ p_x[i] * 2.0;"), "{fixed}");

    change(&mut client, &lib_uri, 2, &fixed);
    assert_eq!(client.diagnostics(&lib_uri), Vec::<Value>::new());
    // Only the changed buffer was parsed and analyzed; the workspace was kept.
    assert_eq!(
        analyzed(&client.logs),
        "analyzed 1 file (src/lib.rs: 1 of 1 kernel); workspace of 2 files kept"
    );
    assert_eq!(
        client
            .logs
            .iter()
            .filter(|l| l.starts_with("read the workspace"))
            .count(),
        1
    );

    // The buffer was never saved: closing it goes back to the file on disk.
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": lib_uri } }));
    let reread = client.diagnostics(&lib_uri);
    assert_eq!(reread.len(), 1);
    assert_eq!(reread[0]["range"], finding["range"]);

    let shutdown = client.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null);
    client.notify("exit", Value::Null);
    assert_eq!(client.exit_code(), 0);
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    let dir = workspace();
    let lib = dir.path().join("src/lib.rs");
    let lib_uri = uri(&lib);
    let text = std::fs::read_to_string(&lib).expect("read");
    // Started in another folder, the server still prints paths from the workspace's.
    let mut client = Client::start(&std::env::temp_dir());
    let init = initialize(
        &mut client,
        dir.path(),
        json!({ "general": { "positionEncodings": ["utf-8", "utf-16"] } }),
    );
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    open(&mut client, &lib_uri, &text);
    let diagnostics = client.diagnostics(&lib_uri);
    assert_eq!(
        analyzed(&client.logs),
        "analyzed 1 file (src/lib.rs: 1 of 1 kernel); workspace of 2 files kept"
    );
    let start = position(&text, "p[i].x", false);
    assert_eq!(start, json!({ "line": 17, "character": 35 }));
    assert_eq!(diagnostics[0]["range"]["start"], start);
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": lib_uri }, "position": position(&text, "i].x", false) }),
    );
    assert!(hover["result"]["contents"]["value"]
        .as_str()
        .expect("markdown")
        .starts_with("**aos**"));
    client.shut_down_cleanly();
}

#[test]
fn a_syntax_error_is_one_error_where_it_is_and_goes_away_when_fixed() {
    let dir = workspace();
    let lib = dir.path().join("src/lib.rs");
    let lib_uri = uri(&lib);
    let text = std::fs::read_to_string(&lib).expect("read");
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    open(&mut client, &lib_uri, &text);
    assert_eq!(client.diagnostics(&lib_uri).len(), 1);

    let broken = text.replace("if i < n {", "if i < n {{");
    change(&mut client, &lib_uri, 2, &broken);
    let diagnostics = client.diagnostics(&lib_uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], 1);
    assert_eq!(diagnostics[0]["source"], "kernel-lint");
    // The brace left open is the kernel's own.
    assert_eq!(
        diagnostics[0]["range"]["start"],
        position(&broken, "{\n    let i", true)
    );
    assert_eq!(diagnostics[0]["message"], "cannot tokenize: unclosed `{`");

    change(&mut client, &lib_uri, 3, &text);
    let diagnostics = client.diagnostics(&lib_uri);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["code"], "KL002");
    client.shut_down_cleanly();
}

#[test]
fn a_file_outside_the_workspace_is_analyzed_alone() {
    let dir = workspace();
    let elsewhere = tempfile::tempdir().expect("a temporary folder");
    let loose = elsewhere.path().join("loose.rs");
    std::fs::write(&loose, KERNEL).expect("written");
    let loose_uri = uri(&loose);
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    open(&mut client, &loose_uri, KERNEL);
    let diagnostics = client.diagnostics(&loose_uri);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["code"], "KL002");
    let shown = std::fs::canonicalize(&loose).expect("exists").display().to_string();
    assert_eq!(
        analyzed(&client.logs),
        format!("analyzed 1 file ({shown}: 1 of 1 kernel); workspace of 2 files kept")
    );
    client.shut_down_cleanly();
}

#[test]
fn bad_requests_get_errors_and_exit_without_shutdown_is_code_1() {
    let dir = workspace();
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    let malformed = client.request("textDocument/hover", json!({ "textDocument": 7 }));
    assert_eq!(malformed["error"]["code"], -32602);
    let unknown = client.request("kernel-lint/unknown", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    assert_eq!(unknown["error"]["message"], "unknown method kernel-lint/unknown");
    // The server still answers after both.
    let nothing = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri(&dir.path().join("src/other.rs")) },
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
            "context": { "diagnostics": [] },
        }),
    );
    assert_eq!(nothing["result"], json!([]));
    client.notify("exit", Value::Null);
    assert_eq!(client.exit_code(), 1);
}

#[test]
fn a_changed_helper_is_analyzed_again_with_the_kernel_that_calls_it() {
    let dir = workspace();
    let kernel = "pub mod helpers;\nuse cuda_std::prelude::*;\nuse cuda_std::thread;\n\n\
        #[kernel]\npub unsafe fn copy(a: &[f32], out: *mut f32, n: usize) {\n    \
        let i = thread::index_1d() as usize;\n    if i < n {\n        \
        *out.add(i) = crate::helpers::load(a, i);\n    }\n}\n";
    let strided = "pub fn load(a: &[f32], i: usize) -> f32 {\n    a[2 * i]\n}\n";
    std::fs::write(dir.path().join("src/lib.rs"), kernel).expect("written");
    std::fs::write(dir.path().join("src/helpers.rs"), strided).expect("written");
    let lib_uri = uri(&dir.path().join("src/lib.rs"));
    let helpers_uri = uri(&dir.path().join("src/helpers.rs"));
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    open(&mut client, &lib_uri, kernel);
    // The finding is in the helper's file, where the access is written.
    let diagnostics = client.diagnostics(&helpers_uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "KL001");
    assert_eq!(diagnostics[0]["range"]["start"], position(strided, "2 * i", true));

    open(&mut client, &helpers_uri, strided);
    assert_eq!(client.diagnostics(&helpers_uri).len(), 1);
    assert_eq!(
        analyzed(&client.logs),
        "analyzed 2 files (src/helpers.rs, src/lib.rs: 1 of 1 kernel); workspace of 2 files kept"
    );
    change(&mut client, &helpers_uri, 2, &strided.replace("2 * i", "i"));
    assert_eq!(client.diagnostics(&helpers_uri), Vec::<Value>::new());
    assert_eq!(
        analyzed(&client.logs),
        "analyzed 2 files (src/helpers.rs, src/lib.rs: 1 of 1 kernel); workspace of 2 files kept"
    );
    client.shut_down_cleanly();
}

#[test]
fn saving_the_configuration_reads_the_workspace_again() {
    let dir = workspace();
    let lib = dir.path().join("src/lib.rs");
    let lib_uri = uri(&lib);
    let text = std::fs::read_to_string(&lib).expect("read");
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    open(&mut client, &lib_uri, &text);
    client.diagnostics(&lib_uri);
    let config = dir.path().join("kernel-lint.toml");
    std::fs::write(&config, "[[kernel]]\nname = \"scale\"\nblock = [128, 1, 1]\n").expect("written");
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&config) } }),
    );
    let diagnostics = client.diagnostics(&lib_uri);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(
        client
            .logs
            .iter()
            .filter(|l| l.starts_with("read the workspace"))
            .count(),
        2
    );
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": lib_uri }, "position": position(&text, "i].x", true) }),
    );
    let markdown = hover["result"]["contents"]["value"].as_str().expect("markdown");
    assert!(
        markdown.ends_with(
            "launch assumed: block (128, 1, 1), from the configuration (kernel-lint.toml or Cargo.toml metadata)\n"
        ),
        "{markdown}"
    );
    client.shut_down_cleanly();
}

#[test]
fn rewrites_are_proven_when_quick_fixes_are_asked_for_and_a_declined_one_says_why() {
    let dir = workspace();
    let offset_kernel = "use cuda_std::prelude::*;\nuse cuda_std::thread;\n\n#[kernel]\n\
        pub unsafe fn read_offset(a: &[f32], out: *mut f32, n: u32, offset: u32) {\n    \
        let i = thread::index_1d();\n    let k = i + offset;\n    if k < n {\n        \
        *out.add(i as usize) = a[k as usize];\n    }\n}\n";
    let path = dir.path().join("src/offset.rs");
    std::fs::write(&path, offset_kernel).expect("written");
    let lib = dir.path().join("src/lib.rs");
    std::fs::write(&lib, format!("pub mod other;\npub mod offset;\n{KERNEL}")).expect("written");
    let offset_uri = uri(&path);
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    open(&mut client, &offset_uri, offset_kernel);
    // On open, the finding is published before any rewrite of it is tried.
    let diagnostics = client.diagnostics(&offset_uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let finding = diagnostics[0].clone();
    assert_eq!(finding["code"], "KL003");
    let message = finding["message"].as_str().expect("text");
    assert!(
        message.starts_with("misaligned access to `a[k as usize]`: 5 sectors per request"),
        "{message}"
    );
    assert!(!message.contains("no rewrite is offered"), "{message}");

    // The proof is made while the request is answered: the file's diagnostics, now with the
    // note, are published before the answer.
    client.next_id += 1;
    let id = client.next_id;
    client.send(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "textDocument/codeAction",
        "params": {
            "textDocument": { "uri": offset_uri },
            "range": finding["range"],
            "context": { "diagnostics": [finding] },
        },
    }));
    let again = client.diagnostics(&offset_uri);
    let actions = client.wait_for(|m| m["id"] == id && m.get("method").is_none());
    // Every rewrite is declined: no quick fix, and the finding now says why.
    assert_eq!(actions["result"], json!([]));
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["range"], finding["range"]);
    let message = again[0]["message"].as_str().expect("text");
    assert!(
        message.ends_with(
            "\nnote: no rewrite is offered: the offset `offset` is part of what the kernel computes: no rewrite \
             of the kernel aligns the run without reading other elements (the host can keep offset % 8 == 0, \
             or place `a` so that the element at the offset starts a 32-byte sector)"
        ),
        "{message}"
    );
    // Asking again gives the same answer from the proof already made.
    let repeated = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": offset_uri },
            "range": finding["range"],
            "context": { "diagnostics": [again[0]] },
        }),
    );
    assert_eq!(repeated["result"], json!([]));
    client.shut_down_cleanly();
}

/// Five kernels in one file, with a helper between them that one reaches, a hint, a
/// suppression, a kernel in an inline module launched from a host function of the same file,
/// and a kernel that calls another.
const KERNELS: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;
use cust::prelude::*;

#[kernel]
pub unsafe fn first(a: &[f32], out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *out.add(i) = a[2 * i];
    }
}

/// Reads `a` with a stride of `s` elements.
pub fn load(a: &[f32], i: usize, s: usize) -> f32 {
    a[i * s]
}

// kernel-lint: block(64)
#[kernel]
pub unsafe fn hinted(a: &[f32], out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *out.add(i) = load(a, i, 4);
    }
}

pub mod inner {
    use cuda_std::prelude::*;
    use cuda_std::thread;

    #[kernel]
    pub unsafe fn launched(a: &[f32], out: *mut f32, n: usize) {
        let i = thread::index_1d() as usize;
        if i < n {
            *out.add(i) = a[3 * i];
        }
    }
}

// kernel-lint: allow(KL001)
#[kernel]
pub unsafe fn quiet(a: &[f32], out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *out.add(i) = a[8 * i] + a[i + 1];
    }
}

#[kernel]
pub unsafe fn caller(a: &[f32], out: *mut f32, n: usize) {
    first(a, out, n);
}

pub fn run(module: &Module, stream: &Stream, a: &DeviceBuffer<f32>, out: &DeviceBuffer<f32>) -> CudaResult<()> {
    unsafe {
        launch!(module.launched<<<16, 128, 0, stream>>>(a.as_device_ptr(), a.len(), out.as_device_ptr(), 2048))?;
    }
    Ok(())
}
"#;

/// The diagnostics a server started now publishes for `text` as the buffer of `uri`.
fn fresh_diagnostics(dir: &Path, uri: &str, text: &str) -> Vec<Value> {
    let mut client = Client::start(dir);
    initialize(&mut client, dir, json!({}));
    open(&mut client, uri, text);
    let diagnostics = client.diagnostics(uri);
    assert_eq!(
        analyzed(&client.logs),
        format!(
            "analyzed 1 file (src/kernels.rs: {n} of {n} kernels); workspace of 2 files kept",
            n = text.matches("#[kernel]").count()
        )
    );
    client.shut_down_cleanly();
    diagnostics
}

#[test]
fn a_change_analyzes_again_only_the_kernels_it_may_touch_and_publishes_what_a_fresh_analysis_does() {
    let dir = workspace();
    std::fs::write(dir.path().join("src/lib.rs"), "pub mod kernels;\n").expect("written");
    std::fs::remove_file(dir.path().join("src/other.rs")).expect("removed");
    let path = dir.path().join("src/kernels.rs");
    std::fs::write(&path, KERNELS).expect("written");
    let kernels_uri = uri(&path);
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    open(&mut client, &kernels_uri, KERNELS);
    let opened = client.diagnostics(&kernels_uri);
    assert_eq!(
        analyzed(&client.logs),
        "analyzed 1 file (src/kernels.rs: 5 of 5 kernels); workspace of 2 files kept"
    );
    let codes: Vec<&str> = opened.iter().map(|d| d["code"].as_str().expect("a code")).collect();
    // `first` (its own and through `caller`, one finding that says the same at one place), the
    // helper through `hinted`, `launched`, and `quiet`'s misaligned read (its stride is
    // suppressed).
    assert_eq!(codes, ["KL001", "KL001", "KL001", "KL003"], "{opened:?}");
    let launched = opened
        .iter()
        .find(|d| d["range"]["start"] == position(KERNELS, "3 * i]", true))
        .expect("the launched kernel's finding");
    let launch_line = KERNELS[..KERNELS.find("launch!(").expect("there")]
        .matches('\n')
        .count()
        + 1;
    assert!(
        launched["message"].as_str().expect("text").contains(&format!(
            "block (128, 1, 1) from the launch site src/kernels.rs:{launch_line}"
        )),
        "{launched}"
    );

    let mut session = Editing {
        client,
        dir: dir.path(),
        uri: kernels_uri.clone(),
        version: 1,
        text: KERNELS.to_string(),
    };

    // Inside one kernel that nothing calls: that kernel alone.
    let published = session.edit(|t| t.replace("load(a, i, 4)", "load(a, i, 2)"), "1 of 5 kernels");
    assert_eq!(published.len(), 4);
    // A newline at the end: nothing.
    session.edit(|t| format!("{t}\n"), "0 of 5 kernels");
    // Inside a kernel another calls: both. Lines inserted in it move every kernel, the helper
    // and the host launch below.
    let published = session.edit(
        |t| {
            t.replace(
                "    if i < n {\n        *out.add(i) = a[2 * i];",
                "    let _ = 0;\n\n    if i < n {\n        *out.add(i) = a[4 * i];",
            )
        },
        "2 of 5 kernels",
    );
    let text = session.text.clone();
    let launched = published
        .iter()
        .find(|d| d["range"]["start"] == position(&text, "3 * i]", true))
        .expect("the launched kernel's finding, moved");
    assert!(
        launched["message"]
            .as_str()
            .expect("text")
            .contains(&format!("from the launch site src/kernels.rs:{}", launch_line + 2)),
        "{launched}"
    );
    let hover = session.client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": kernels_uri }, "position": position(&text, "3 * i]", true) }),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .expect("markdown")
            .starts_with("**strided** load of `a[3 * i]`"),
        "{hover}"
    );
    // A helper outside the kernels: every kernel.
    session.edit(|t| t.replace("a[i * s]", "a[i * s + 1]"), "5 of 5 kernels");
    // A kernel added with its blank line: that kernel; removed again: none.
    let added = "#[kernel]\npub unsafe fn added(a: &[f32], out: *mut f32) {\n    \
                 let i = thread::index_1d() as usize;\n    *out.add(i) = a[i + 3];\n}\n\n";
    let before = session.text.clone();
    session.edit(
        |t| t.replacen("// kernel-lint: allow", &format!("{added}// kernel-lint: allow"), 1),
        "1 of 6 kernels",
    );
    session.edit(|_| before.clone(), "0 of 5 kernels");
    // A kernel renamed where no other code names it: that kernel.
    session.edit(|t| t.replace("fn quiet(", "fn hushed("), "1 of 5 kernels");
    // A kernel renamed that the host launch names: every kernel.
    session.edit(|t| t.replace("fn launched(", "fn started("), "5 of 5 kernels");
    // A suppression above a kernel changed: every kernel; `hushed`'s stride is now reported.
    let published = session.edit(|t| t.replace("allow(KL001)", "allow(KL003)"), "5 of 5 kernels");
    let codes: Vec<&str> = published.iter().map(|d| d["code"].as_str().expect("a code")).collect();
    assert_eq!(codes, ["KL001", "KL001", "KL001", "KL001"], "{published:?}");
    // Another file changed since: every kernel, once.
    let lib_uri = uri(&dir.path().join("src/lib.rs"));
    open(&mut session.client, &lib_uri, "pub mod kernels;\n");
    session.client.diagnostics(&lib_uri);
    change(
        &mut session.client,
        &lib_uri,
        2,
        "pub mod kernels;\npub const N: usize = 4;\n",
    );
    session.client.diagnostics(&lib_uri);
    assert_eq!(
        analyzed(&session.client.logs),
        "analyzed 1 file (src/lib.rs); workspace of 2 files kept"
    );
    session.edit(|t| t.replace("a[8 * i]", "a[6 * i]"), "5 of 5 kernels");
    session.edit(|t| t.replace("a[6 * i]", "a[4 * i]"), "1 of 5 kernels");
    session.client.shut_down_cleanly();
}

/// One buffer changed again and again, each time checked against a fresh analysis.
struct Editing<'a> {
    client: Client,
    dir: &'a Path,
    uri: String,
    version: i64,
    text: String,
}

impl Editing<'_> {
    /// Changes the buffer to `change(text)`; the pass must have analyzed the `expected` kernels
    /// (`N of M kernels`) and published exactly what a server started on the new text does.
    fn edit(&mut self, change: impl FnOnce(&str) -> String, expected: &str) -> Vec<Value> {
        let new = change(&self.text);
        assert_ne!(new, self.text, "the edit changes the text");
        self.version += 1;
        self::change(&mut self.client, &self.uri, self.version, &new);
        let published = self.client.diagnostics(&self.uri);
        assert_eq!(
            analyzed(&self.client.logs),
            format!("analyzed 1 file (src/kernels.rs: {expected}); workspace of 2 files kept"),
            "{new}"
        );
        assert_eq!(published, fresh_diagnostics(self.dir, &self.uri, &new), "{new}");
        self.text = new;
        published
    }
}
