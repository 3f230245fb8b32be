//! The HTML page of `review` rendered in headless Chromium: it renders, its pictures are there
//! at the size they declare, and the console stays quiet. Needs Debian's `chromium` package
//! (`bash .ci/run` installs it); `KERNEL_LINT_CHROMIUM` names another binary.

use crate::review_repo;

use review_repo::{parts, with_aos, Repo, CLEAN};
use std::path::{Path, PathBuf};
use std::process::Command;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 2000;

/// Headless Chromium: `KERNEL_LINT_CHROMIUM`, else `chromium` on the PATH.
fn chromium() -> Option<PathBuf> {
    xtask::external::program(
        "chromium",
        Some("KERNEL_LINT_CHROMIUM"),
        "apt-get install -y chromium",
        "rendering the HTML report",
    )
}

/// Runs Chromium headless on a page with `extra` arguments; its stdout and stderr.
fn headless(browser: &Path, page: &Path, profile: &Path, extra: &[String]) -> (String, String) {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The page's own errors in Chromium's log (its D-Bus and GPU chatter is not the page's).
fn console_errors(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("Uncaught") || l.contains(":CONSOLE(") || l.contains("Failed to load resource"))
        .collect()
}

/// The width and height attributes of every `<svg>` of a page.
fn declared_sizes(page: &str) -> Vec<(u32, u32)> {
    page.split("<svg ")
        .skip(1)
        .map(|svg| {
            let attribute = |name: &str| -> u32 {
                let start = svg.find(&format!(" {name}=\"")).expect("the attribute") + name.len() + 3;
                svg[start..]
                    .split('"')
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("a whole number")
            };
            (attribute("width"), attribute("height"))
        })
        .collect()
}

#[test]
fn the_page_renders_in_headless_chromium_with_its_pictures() {
    let repo = Repo::new();
    repo.write("k.rs", CLEAN);
    repo.commit("clean");
    repo.write("k.rs", &with_aos());
    let (code, page, stderr) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "--format", "html", "k.rs"]));
    assert_eq!((code, stderr.as_str()), (1, ""));
    // Self-contained: no scripts, nothing fetched from elsewhere.
    assert!(!page.contains("<script"));
    assert!(!page.contains("<link"));
    assert_eq!(
        page.matches("http").count(),
        page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    let sizes = declared_sizes(&page);
    assert_eq!(sizes.len(), 2, "the request now and after the suggested rewrite");

    let Some(browser) = chromium() else {
        return;
    };
    let folder = tempfile::tempdir().expect("a temporary folder");
    let file = folder.path().join("review.html");
    std::fs::write(&file, &page).expect("the page");
    let png = folder.path().join("review.png");
    let (_, log) = headless(
        &browser,
        &file,
        &folder.path().join("profile"),
        &[format!("--screenshot={}", png.display())],
    );
    assert_eq!(console_errors(&log), Vec::<&str>::new(), "{log}");

    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png).expect("the screenshot"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("the pixels");
    assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
    let channels = info.color_type.samples();
    let pixels = &pixels[..info.buffer_size()];
    let first = &pixels[..channels];
    assert!(
        pixels.chunks(channels).any(|p| p != first),
        "the screenshot is one colour"
    );
    // The filled cells of the pictures: #2563eb.
    let used = pixels
        .chunks(channels)
        .filter(|p| p[0].abs_diff(0x25) < 8 && p[1].abs_diff(0x63) < 8 && p[2].abs_diff(0xeb) < 8)
        .count();
    assert!(used > 500, "only {used} pixels of the pictures' fill");

    // A copy of the page that writes each picture's laid-out size into the page.
    let measuring = page.replace(
        "</body>",
        "<script>for (const s of document.querySelectorAll('svg')) { const r = s.getBoundingClientRect(); \
         const p = document.createElement('p'); p.textContent = 'laid out ' + r.width + 'x' + r.height; \
         document.body.appendChild(p); }</script></body>",
    );
    let copy = folder.path().join("measured.html");
    std::fs::write(&copy, measuring).expect("the copy");
    let (dom, log) = headless(
        &browser,
        &copy,
        &folder.path().join("profile2"),
        &["--dump-dom".to_string()],
    );
    assert_eq!(console_errors(&log), Vec::<&str>::new(), "{log}");
    let laid_out: Vec<String> = dom
        .split("<p>laid out ")
        .skip(1)
        .map(|rest| rest.split('<').next().unwrap_or_default().to_string())
        .collect();
    let expected: Vec<String> = sizes.iter().map(|(w, h)| format!("{w}x{h}")).collect();
    assert_eq!(laid_out, expected);
}

#[test]
fn console_errors_are_recognized() {
    let log = "[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus\n\
               [1:1:INFO:CONSOLE(1)] \"Uncaught ReferenceError: x is not defined\", source: file:///p.html (1)\n";
    assert_eq!(console_errors(log).len(), 1);
}
