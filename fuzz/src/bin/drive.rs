//! A fuzzer that needs no nightly toolchain: mutates the bundled fixtures with a seeded RNG
//! (byte flips, token splices, deletions, duplications, deep nesting, odd numbers in index
//! expressions, swapped operators, launch hints, extra modules), runs each mutant through
//! [`kernel_lint_fuzz::run`] and keeps every input that panics, fails internally or hangs.
//!
//! `drive [--seconds N] [--seed N] [--out DIR] [--timeout-ms N]`; prints executions per second,
//! defects and distinct outcomes every 10 s; exits 1 when a defect was found.
//! `drive --replay FILE` runs one saved input.

use kernel_lint_fuzz::{run, Shape, MODULE_MARK};
use std::collections::HashSet;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const FIXTURES: &[&str] = &[
    include_str!("../../../fixtures/seeds/aos_soa.rs"),
    include_str!("../../../fixtures/seeds/broadcast.rs"),
    include_str!("../../../fixtures/seeds/loop_order.rs"),
    include_str!("../../../fixtures/seeds/matmul.rs"),
    include_str!("../../../fixtures/seeds/offset.rs"),
    include_str!("../../../fixtures/seeds/particles.rs"),
    include_str!("../../../fixtures/seeds/rgb.rs"),
    include_str!("../../../fixtures/seeds/strided.rs"),
    include_str!("../../../fixtures/seeds/transpose.rs"),
    include_str!("../../../fixtures/patterns/gather.rs"),
    include_str!("../../../fixtures/patterns/hard_cases.rs"),
    include_str!("../../../fixtures/patterns/raw_nvptx.rs"),
    include_str!("../../../fixtures/dialects/core_arch_nvptx.rs"),
    include_str!("../../../fixtures/dialects/cuda_oxide.rs"),
    include_str!("../../../fixtures/dialects/nvptx_builtins.rs"),
    include_str!("../../../fixtures/dialects/ptx_support.rs"),
    include_str!("../../../fixtures/dialects/unanalyzed.rs"),
    include_str!("../../../fixtures/idioms/kernels.rs"),
    include_str!("../../../fixtures/boundaries/kernels.rs"),
];

const TOKENS: &[&str] = &[
    "#[kernel]",
    "pub",
    "unsafe",
    "fn",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ":",
    "::",
    "&",
    "*",
    "mut",
    "let",
    "=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "as usize",
    "as i32",
    "as u64",
    "if",
    "else",
    "while",
    "for",
    "in",
    "..",
    "..=",
    "loop",
    "break",
    "continue",
    "return",
    "match",
    "=>",
    "_",
    "struct",
    "impl",
    "Self",
    "const",
    "static",
    "mod",
    "use",
    "crate::",
    "super::",
    "thread::index_1d()",
    "thread::thread_idx_x()",
    "thread::block_idx_x()",
    "thread::block_dim_x()",
    "thread_idx().x",
    "block_idx().y",
    ".add(",
    ".offset(",
    ".get_unchecked(",
    ".len()",
    "shared_array![f32; 32]",
    "#[address_space(shared)]",
    "core::arch::nvptx::",
    "i",
    "j",
    "k",
    "n",
    "a",
    "out",
    "x",
    "y",
    "0",
    "1",
    "2",
    "31",
    "32",
    "255",
    "1024",
    "my_macro!(a[i])",
    "\"text\"",
    "'c'",
    "/* c */",
    "// kernel-lint: block(16, 16)\n",
    "// kernel-lint: allow(KL002)\n",
    "\n",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "31",
    "32",
    "33",
    "1023",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "340282366920938463463374607431768211455",
    "99999999999999999999999999999999999999999",
    "0x7fffffffffffffff",
    "0xffffffffffffffff",
    "1u8",
    "255u8",
    "1e300",
    "0.5",
    "i64::MAX",
    "usize::MAX",
    "i32::MIN",
    "(1 << 63)",
    "(0 - 1)",
];

const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "<", ">=", "&&", "||",
];

/// SplitMix64: small, seeded, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A mutant, built on characters so that most stay valid UTF-8; a few get raw bytes.
fn mutate(rng: &mut Rng) -> Vec<u8> {
    let mut text: Vec<char> = rng.pick(FIXTURES).chars().collect();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = text.len();
        let at = rng.below(len + 1);
        match rng.below(11) {
            // A character replaced by a random one, or a random ASCII character.
            0 => {
                if at < len {
                    text[at] = if rng.chance(80) {
                        (b' ' + rng.below(95) as u8) as char
                    } else {
                        char::from_u32(rng.next() as u32 % 0x3_0000).unwrap_or('\u{fffd}')
                    };
                }
            }
            // A range deleted.
            1 => {
                let end = (at + 1 + rng.below(80)).min(len);
                text.drain(at.min(end)..end);
            }
            // A range duplicated in place.
            2 => {
                let end = (at + 1 + rng.below(200)).min(len);
                let piece: Vec<char> = text[at.min(end)..end].to_vec();
                text.splice(at..at, piece);
            }
            // A piece of another fixture spliced in.
            3 => {
                let other: Vec<char> = rng.pick(FIXTURES).chars().collect();
                let from = rng.below(other.len());
                let piece: Vec<char> = other[from..(from + 1 + rng.below(300)).min(other.len())].to_vec();
                text.splice(at..at, piece);
            }
            // A kernel-like token inserted.
            4 => {
                let token = format!(" {} ", rng.pick(TOKENS));
                text.splice(at..at, token.chars());
            }
            // An integer replaced by an extreme one (index expressions, launch values, shifts).
            5 => {
                let digits: Vec<usize> = (0..len).filter(|&i| text[i].is_ascii_digit()).collect();
                if !digits.is_empty() {
                    let start = *rng.pick(&digits);
                    let mut end = start;
                    while end < len && text[end].is_ascii_alphanumeric() {
                        end += 1;
                    }
                    text.splice(start..end, rng.pick(NUMBERS).chars());
                }
            }
            // An operator swapped for another.
            6 => {
                let ops: Vec<usize> = (0..len).filter(|&i| "+-*/%&|^<>".contains(text[i])).collect();
                if !ops.is_empty() {
                    let i = *rng.pick(&ops);
                    text.splice(i..i + 1, rng.pick(OPERATORS).chars());
                }
            }
            // A place nested deep, around the limits (128) and far beyond.
            7 => {
                let depth = *rng.pick(&[1usize, 8, 100, 127, 128, 129, 200, 1000, 10_000]);
                let (open, close) = *rng.pick(&[("(", ")"), ("[", "]"), ("{", "}"), ("-", ""), ("&", ""), ("!", "")]);
                let end = (at + rng.below(40)).min(len);
                let inner: String = text[at..end].iter().collect();
                let wrapped = format!("{}{inner}{}", open.repeat(depth), close.repeat(depth));
                text.splice(at..end, wrapped.chars());
            }
            // A launch hint or suppression with odd values.
            8 => {
                let hint = format!(
                    "\n// kernel-lint: block({}, {})\n",
                    rng.pick(NUMBERS),
                    rng.pick(NUMBERS)
                );
                text.splice(at..at, hint.chars());
            }
            // Another module of the crate: a piece of a fixture.
            9 => {
                let other = rng.pick(FIXTURES);
                text.extend(MODULE_MARK.chars());
                text.extend(other.chars());
            }
            // A line cut short: unterminated strings, comments, items.
            _ => {
                let piece = *rng.pick(&["\"", "/*", "r#\"", "'", "b\"", "#[", "fn", "//", "\\"]);
                text.splice(at..at, piece.chars());
            }
        }
    }
    let mut bytes = String::from_iter(text).into_bytes();
    if rng.chance(2) && !bytes.is_empty() {
        let at = rng.below(bytes.len());
        bytes[at] = rng.next() as u8;
    }
    bytes
}

struct Args {
    seconds: u64,
    seed: u64,
    out: PathBuf,
    timeout: Duration,
}

fn args() -> Args {
    let mut args = Args {
        seconds: 60,
        seed: 1,
        out: PathBuf::from("artifacts/drive"),
        timeout: Duration::from_secs(20),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--seconds" => args.seconds = value.parse().expect("--seconds N"),
            "--seed" => args.seed = value.parse().expect("--seed N"),
            "--out" => args.out = PathBuf::from(value),
            "--timeout-ms" => args.timeout = Duration::from_millis(value.parse().expect("--timeout-ms N")),
            _ => panic!("unknown option {flag}; usage: drive [--seconds N] [--seed N] [--out DIR] [--timeout-ms N]"),
        }
    }
    args
}

fn main() {
    // `drive --replay FILE`: one saved input, its outcome and how long it took.
    let argv: Vec<String> = std::env::args().collect();
    if let [_, flag, file] = argv.as_slice() {
        if flag == "--replay" {
            let bytes = std::fs::read(file).expect("read the input");
            let start = Instant::now();
            let outcome = run(&bytes);
            println!("{outcome:?} in {:.2} s", start.elapsed().as_secs_f64());
            std::process::exit(i32::from(outcome.is_err()));
        }
    }
    let args = args();
    std::fs::create_dir_all(&args.out).expect("create the output folder");
    // Panics are counted, not printed: the message goes with the saved input.
    let last_panic: Arc<Mutex<String>> = Arc::default();
    let hook_panic = Arc::clone(&last_panic);
    panic::set_hook(Box::new(move |info| {
        let at = info.location().map(|l| format!(" at {l}")).unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *hook_panic.lock().unwrap_or_else(|e| e.into_inner()) = format!("panicked{at}: {message}");
    }));

    let mut rng = Rng(args.seed);
    let start = Instant::now();
    let mut last_report = start;
    let (mut executions, mut defects, mut hangs) = (0u64, 0u64, 0u64);
    let mut shapes: HashSet<Shape> = HashSet::new();
    let mut kinds: HashSet<String> = HashSet::new();
    // One worker thread runs the cases, so that a hang is noticed and the run goes on.
    let (to_worker, cases) = mpsc::channel::<Vec<u8>>();
    let (to_main, results) = mpsc::channel::<Result<Shape, String>>();
    let worker = {
        let last_panic = Arc::clone(&last_panic);
        move |cases: mpsc::Receiver<Vec<u8>>, to_main: mpsc::Sender<Result<Shape, String>>| {
            for case in cases {
                let result = panic::catch_unwind(AssertUnwindSafe(|| run(&case)))
                    .unwrap_or_else(|_| Err(last_panic.lock().unwrap_or_else(|e| e.into_inner()).clone()));
                if to_main.send(result).is_err() {
                    break;
                }
            }
        }
    };
    let spawn = |cases, to_main| {
        let worker = worker.clone();
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || worker(cases, to_main))
            .expect("start the worker")
    };
    let mut to_worker = to_worker;
    let mut results = results;
    spawn(cases, to_main);
    while start.elapsed() < Duration::from_secs(args.seconds) {
        let case = mutate(&mut rng);
        if to_worker.send(case.clone()).is_err() {
            break;
        }
        let outcome = match results.recv_timeout(args.timeout) {
            Ok(outcome) => outcome,
            Err(_) => {
                // The worker is stuck: leave it, save the input, start another.
                hangs += 1;
                let (tx, rx) = mpsc::channel();
                let (tx2, rx2) = mpsc::channel();
                to_worker = tx;
                results = rx2;
                spawn(rx, tx2);
                Err(format!("no answer after {} ms", args.timeout.as_millis()))
            }
        };
        executions += 1;
        match outcome {
            Ok(shape) => {
                shapes.insert(shape);
            }
            Err(defect) => {
                defects += 1;
                let kind = defect.lines().next().unwrap_or_default().to_string();
                if kinds.insert(kind.clone()) || kind.starts_with("no answer") {
                    let name = format!("defect-{:016x}", hash(&case));
                    let _ = std::fs::write(args.out.join(format!("{name}.rs")), &case);
                    let _ = std::fs::write(args.out.join(format!("{name}.txt")), &defect);
                    println!("defect: {kind} -> {}", args.out.join(format!("{name}.rs")).display());
                }
            }
        }
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            report(start, executions, defects, hangs, shapes.len(), kinds.len());
        }
    }
    report(start, executions, defects, hangs, shapes.len(), kinds.len());
    std::process::exit(i32::from(defects > 0));
}

fn report(start: Instant, executions: u64, defects: u64, hangs: u64, shapes: usize, kinds: usize) {
    let secs = start.elapsed().as_secs_f64();
    println!(
        "#{executions} in {secs:.0} s ({:.1} exec/s): {defects} defective inputs ({kinds} distinct, {hangs} hangs), {shapes} distinct outcomes",
        executions as f64 / secs.max(1e-9)
    );
}

fn hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
