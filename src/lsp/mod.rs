//! `cargo kernel-lint lsp`: a language server over stdio. Diagnostics on open, change and
//! save (from the buffer), the fixes as quick fixes, the prediction of an access on hover.
//!
//! The workspace is read once, at initialize (and again when a `Cargo.toml` or
//! `kernel-lint.toml` is saved); a change of one buffer parses that file alone and analyzes
//! again only the kernels of it that the change may touch, against the kept workspace. Only
//! the protocol goes to stdout.

mod actions;
mod convert;
mod hover;

use crate::error::CliError;
use crate::exit::Status;
use crate::session::{key, Editor, Session};
use convert::Encoding;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, LogMessage,
    Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{CodeActionRequest, HoverRequest, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability, DidChangeTextDocumentParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams, Hover, HoverContents,
    HoverParams, HoverProviderCapability, InitializeParams, LogMessageParams, MarkupContent, MarkupKind, MessageType,
    PositionEncodingKind, PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ShowMessageParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Stack of the server's thread: the analysis recurses as deep as the source nests.
const SERVER_STACK_BYTES: usize = 256 << 20;

/// Serves on stdin and stdout until `exit`: a clean status when `shutdown` came first, as the
/// protocol asks (exit code 0, else 1).
pub fn run(session: &Session) -> Result<Status, CliError> {
    let session = session.clone();
    let server = std::thread::Builder::new()
        .name("kernel-lint-lsp".into())
        .stack_size(SERVER_STACK_BYTES)
        .spawn(move || serve(&session))
        .map_err(|e| CliError::Lsp(format!("cannot start the server: {e}")))?;
    match server.join() {
        Ok(Ok(true)) => Ok(Status::Clean),
        // An exit without shutdown is exit code 1.
        Ok(Ok(false)) => Ok(Status::Findings),
        Ok(Err(message)) => Err(CliError::Lsp(message)),
        Err(panic) => Err(CliError::Lsp(format!(
            "internal error: {}",
            kernel_lint_analyzer::panic_message(panic.as_ref())
        ))),
    }
}

/// The protocol from initialize to exit; whether shutdown came before exit.
fn serve(session: &Session) -> Result<bool, String> {
    let (connection, io_threads) = Connection::stdio();
    let clean = protocol(&connection, session);
    drop(connection);
    io_threads.join().map_err(|e| format!("the connection failed: {e}"))?;
    clean
}

fn protocol(connection: &Connection, session: &Session) -> Result<bool, String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("no initialize request: {e}"))?;
    // Settings the client does not send as expected are taken as not sent.
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let encoding = negotiate(&params);
    let capabilities = capabilities(encoding);
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "kernel-lint", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("initialize failed: {e}"))?;
    let root = root(&params).map(|r| key(&r));
    if let Some(root) = &root {
        // Paths are printed relative to the current folder: the workspace's, whatever folder
        // the editor started the server in.
        if let Err(err) = std::env::set_current_dir(root) {
            eprintln!("warning: cannot enter the workspace folder {}: {err}", root.display());
        }
    }
    let mut server = Server {
        state: session.editor(root),
        encoding,
        outbox: Vec::new(),
        published: BTreeMap::new(),
    };
    server.load();
    server.flush(connection);
    let mut shut_down = false;
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                let response = if shut_down {
                    Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shut down".into(),
                    )
                } else if request.method == "shutdown" {
                    shut_down = true;
                    Response::new_ok(request.id, Value::Null)
                } else {
                    let id = request.id.clone();
                    catch_unwind(AssertUnwindSafe(|| server.request(request)))
                        .unwrap_or_else(|panic| internal_error(id, kernel_lint_analyzer::panic_message(panic.as_ref())))
                };
                server.outbox.push(response.into());
            }
            Message::Notification(notification) if notification.method == "exit" => return Ok(shut_down),
            Message::Notification(_) if shut_down => {}
            Message::Notification(notification) => {
                let method = notification.method.clone();
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| server.notify(notification))) {
                    let message = kernel_lint_analyzer::panic_message(panic.as_ref());
                    server.log(
                        MessageType::ERROR,
                        format!("internal error handling {method}: {message}"),
                    );
                }
            }
            Message::Response(_) => {}
        }
        server.flush(connection);
    }
    // The client went away without `exit`.
    Ok(false)
}

/// UTF-8 when the client offers it (no conversion of columns), else the protocol's UTF-16.
fn negotiate(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    if offered.is_some_and(|kinds| kinds.contains(&PositionEncodingKind::UTF8)) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                include_text: Some(false),
            })),
            ..Default::default()
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// The workspace folder: the first of `workspaceFolders`, else `rootUri`, else `rootPath`.
#[allow(deprecated)] // `rootUri` and `rootPath` are what older clients send.
fn root(params: &InitializeParams) -> Option<PathBuf> {
    let folder = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri);
    folder
        .or(params.root_uri.as_ref())
        .and_then(convert::path_of)
        .or_else(|| params.root_path.as_ref().map(PathBuf::from))
}

fn internal_error(id: RequestId, message: String) -> Response {
    Response::new_err(
        id,
        ErrorCode::InternalError as i32,
        format!("internal error: {message}"),
    )
}

struct Server {
    state: Editor,
    encoding: Encoding,
    /// Messages to send once the current one is handled.
    outbox: Vec<Message>,
    /// The diagnostics last published for each file.
    published: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>,
}

impl Server {
    fn flush(&mut self, connection: &Connection) {
        for message in self.outbox.drain(..) {
            // A closed connection ends the loop at the next receive.
            let _ = connection.sender.send(message);
        }
    }

    fn notification<N: lsp_types::notification::Notification>(&mut self, params: N::Params) {
        self.outbox
            .push(Notification::new(N::METHOD.to_string(), params).into());
    }

    fn log(&mut self, typ: MessageType, message: String) {
        self.notification::<LogMessage>(LogMessageParams { typ, message });
    }

    /// Reads the workspace (again), then analyzes the open buffers against it.
    fn load(&mut self) {
        match self.state.load() {
            Ok(files) => self.log(MessageType::LOG, format!("read the workspace: {files} files")),
            Err(why) => {
                let message = format!("kernel-lint: no workspace read ({why}); files are analyzed alone");
                self.notification::<ShowMessage>(ShowMessageParams {
                    typ: MessageType::WARNING,
                    message: message.clone(),
                });
                self.log(MessageType::WARNING, message);
            }
        }
        let open: Vec<PathBuf> = self.state.documents.keys().cloned().collect();
        for path in open {
            let text = self.state.documents.get(&path).cloned();
            self.recheck(&path, text);
        }
    }

    /// Analyzes one file with its buffer's text, logs what was analyzed, and publishes what
    /// changed.
    fn recheck(&mut self, path: &Path, text: Option<String>) {
        let pass = self.state.recheck(path, text);
        self.log(MessageType::LOG, pass.message());
        self.publish(Some(path));
    }

    /// Publishes the diagnostics of `path`, if given, and of every other file whose list changed.
    fn publish(&mut self, path: Option<&Path>) {
        let mut current: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        for (file, (findings, errors)) in self.state.findings() {
            let (Some(uri), Some(text)) = (convert::uri_of(&file), self.state.text(&file)) else {
                continue;
            };
            let list = errors
                .iter()
                .map(|e| convert::error(e, &text, self.encoding))
                .chain(
                    findings
                        .iter()
                        .map(|d| convert::diagnostic(d, &text, &uri, self.encoding)),
                )
                .collect();
            current.insert(file, list);
        }
        let gone: Vec<PathBuf> = self
            .published
            .keys()
            .filter(|p| !current.contains_key(*p))
            .cloned()
            .collect();
        for file in gone {
            current.insert(file, Vec::new());
        }
        if let Some(path) = path {
            current.entry(path.to_path_buf()).or_default();
        }
        for (file, list) in current {
            if Some(file.as_path()) != path && self.published.get(&file) == Some(&list) {
                continue;
            }
            let Some(uri) = convert::uri_of(&file) else {
                continue;
            };
            self.notification::<PublishDiagnostics>(PublishDiagnosticsParams {
                uri,
                diagnostics: list.clone(),
                version: None,
            });
            if list.is_empty() {
                self.published.remove(&file);
            } else {
                self.published.insert(file, list);
            }
        }
    }

    fn notify(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Some(params) = self.params::<DidOpenTextDocumentParams>(notification.params) else {
                    return;
                };
                let Some(path) = self.source(&params.text_document.uri) else {
                    return;
                };
                self.recheck(&path, Some(params.text_document.text));
            }
            DidChangeTextDocument::METHOD => {
                let Some(params) = self.params::<DidChangeTextDocumentParams>(notification.params) else {
                    return;
                };
                let Some(path) = self.source(&params.text_document.uri) else {
                    return;
                };
                let mut text = self.state.documents.get(&path).cloned().unwrap_or_default();
                for change in params.content_changes {
                    match change.range {
                        Some(range) => {
                            let start = convert::offset(&text, range.start, self.encoding);
                            let end = convert::offset(&text, range.end, self.encoding).max(start);
                            text.replace_range(start..end, &change.text);
                        }
                        None => text = change.text,
                    }
                }
                self.recheck(&path, Some(text));
            }
            DidSaveTextDocument::METHOD => {
                let Some(params) = self.params::<DidSaveTextDocumentParams>(notification.params) else {
                    return;
                };
                let Some(path) = convert::path_of(&params.text_document.uri).map(|p| key(&p)) else {
                    return;
                };
                let settings = path
                    .file_name()
                    .is_some_and(|n| n == "Cargo.toml" || n == "kernel-lint.toml");
                if settings {
                    // Settings are read from disk, where the save just put them.
                    self.load();
                } else if let Some(open) = self.state.documents.get(&path) {
                    let text = params.text.unwrap_or_else(|| open.clone());
                    self.recheck(&path, Some(text));
                }
            }
            DidCloseTextDocument::METHOD => {
                let Some(params) = self.params::<DidCloseTextDocumentParams>(notification.params) else {
                    return;
                };
                let Some(path) = self.source(&params.text_document.uri) else {
                    return;
                };
                // The file on disk is what the workspace has once its buffer is gone.
                self.recheck(&path, None);
            }
            _ => {}
        }
    }

    /// A notification's parameters; a malformed one is logged and ignored (a notification has
    /// no response to carry the error).
    fn params<P: DeserializeOwned>(&mut self, params: Value) -> Option<P> {
        match serde_json::from_value(params) {
            Ok(params) => Some(params),
            Err(err) => {
                self.log(MessageType::ERROR, format!("malformed parameters: {err}"));
                None
            }
        }
    }

    /// The file of a Rust document with a `file:` URI; other documents are not analyzed.
    fn source(&self, uri: &Uri) -> Option<PathBuf> {
        let path = convert::path_of(uri)?;
        (path.extension().and_then(|e| e.to_str()) == Some("rs")).then(|| key(&path))
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            HoverRequest::METHOD => {
                serde_json::from_value(request.params).map(|params: HoverParams| self.hover(params))
            }
            CodeActionRequest::METHOD => {
                serde_json::from_value(request.params).map(|params: CodeActionParams| self.code_actions(params))
            }
            method => {
                return Response::new_err(id, ErrorCode::MethodNotFound as i32, format!("unknown method {method}"))
            }
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(err) => Response::new_err(
                id,
                ErrorCode::InvalidParams as i32,
                format!("invalid parameters: {err}"),
            ),
        }
    }

    fn hover(&self, params: HoverParams) -> Value {
        let at = params.text_document_position_params;
        let Some(path) = self.source(&at.text_document.uri) else {
            return Value::Null;
        };
        let Some(text) = self.state.text(&path) else {
            return Value::Null;
        };
        let offset = convert::offset(&text, at.position, self.encoding);
        match hover::markdown(&self.state, &path, offset) {
            Some(value) => serde_json::to_value(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                }),
                range: None,
            })
            .unwrap_or(Value::Null),
            None => Value::Null,
        }
    }

    fn code_actions(&mut self, params: CodeActionParams) -> Value {
        let wanted = params.context.only.as_ref().is_none_or(|kinds| {
            kinds
                .iter()
                .any(|k| k == &CodeActionKind::QUICKFIX || k == &CodeActionKind::EMPTY)
        });
        let Some(path) = self.source(&params.text_document.uri).filter(|_| wanted) else {
            return Value::Array(Vec::new());
        };
        let Some(text) = self.state.text(&path) else {
            return Value::Array(Vec::new());
        };
        let start = convert::offset(&text, params.range.start, self.encoding);
        let end = convert::offset(&text, params.range.end, self.encoding);
        // The findings' rewrites are proven now; where that changed what a finding says (a
        // note on why no rewrite is offered), its file's diagnostics are published again.
        if self.state.prove(&path, start, end) {
            self.publish(None);
        }
        let actions = actions::quick_fixes(&self.state, &path, start, end, self.encoding);
        serde_json::to_value(actions).unwrap_or(Value::Null)
    }
}
