//! Property test of sound uniformity: random index expressions mixing lane-varying sources
//! (the thread index, names bound by patterns, closure results, calls the analysis cannot see,
//! loads through lane-dependent addresses) with uniform ones (parameters, constants, the block
//! index, a load from a per-block header) under `+`, `*`, `/` and `%`. Whenever the analyzer
//! says `broadcast`, evaluating the expression lane by lane, with random values for the
//! uniform unknowns and different random values in every lane for the lane-varying ones,
//! gives one address for all 32 lanes of every warp of the block.

use kernel_lint_analyzer::{analyze_source, AccessClass, LaunchPlan, Op, SourceFile};
use proptest::prelude::*;

/// Threads per block under the default launch.
const BLOCK: usize = 256;
/// The value of the constant `K` in the generated kernel.
const K: i128 = 6;

/// A value that may differ between lanes, and the variable the kernel binds it to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Varying {
    /// `idx[tid]`: a load through a lane-dependent address.
    Gathered,
    /// `node` of `while let Some((node, _)) = stack.pop()`.
    Node,
    /// `found` of `if let Some(found) = lookup(node)`.
    Found,
    /// The result of a closure over the thread index.
    FromClosure,
    /// The result of a zero-argument call the analysis cannot see.
    Called,
    /// A `match` on the thread index whose arms give different values.
    Matched,
}

const VARYING: [Varying; 6] = [
    Varying::Gathered,
    Varying::Node,
    Varying::Found,
    Varying::FromClosure,
    Varying::Called,
    Varying::Matched,
];

impl Varying {
    fn name(self) -> &'static str {
        match self {
            Varying::Gathered => "gathered",
            Varying::Node => "node",
            Varying::Found => "found",
            Varying::FromClosure => "from_closure",
            Varying::Called => "called",
            Varying::Matched => "matched",
        }
    }

    fn index(self) -> usize {
        VARYING.iter().position(|v| *v == self).unwrap_or(0)
    }
}

/// A leaf of an index expression.
#[derive(Debug, Clone, Copy)]
enum Leaf {
    /// `tid`, the thread index.
    Tid,
    /// `bid`, the block index.
    Bid,
    /// The parameter `n`.
    N,
    /// The parameter `m`.
    M,
    /// The constant `K`.
    K,
    /// `first`, read from a per-block header.
    First,
    /// A literal.
    Lit(i64),
    /// A lane-varying value.
    Varying(Varying),
}

/// An index expression over non-negative integers.
#[derive(Debug, Clone)]
enum Index {
    Leaf(Leaf),
    Add(Box<Index>, Box<Index>),
    Mul(Box<Index>, Box<Index>),
    /// `lhs / (rhs + c)` with `c >= 1`: never a division by zero.
    Div(Box<Index>, Box<Index>, i64),
    /// `lhs % (rhs + c)` with `c >= 1`.
    Rem(Box<Index>, Box<Index>, i64),
}

impl Index {
    fn source(&self) -> String {
        match self {
            Index::Leaf(leaf) => match leaf {
                Leaf::Tid => "tid".into(),
                Leaf::Bid => "bid".into(),
                Leaf::N => "n".into(),
                Leaf::M => "m".into(),
                Leaf::K => "K".into(),
                Leaf::First => "first".into(),
                Leaf::Lit(c) => c.to_string(),
                Leaf::Varying(v) => v.name().into(),
            },
            Index::Add(a, b) => format!("({} + {})", a.source(), b.source()),
            Index::Mul(a, b) => format!("({} * {})", a.source(), b.source()),
            Index::Div(a, b, c) => format!("({} / ({} + {c}))", a.source(), b.source()),
            Index::Rem(a, b, c) => format!("({} % ({} + {c}))", a.source(), b.source()),
        }
    }

    /// The value in one lane; `None` on overflow.
    fn eval(&self, lane: &LaneValues) -> Option<i128> {
        Some(match self {
            Index::Leaf(leaf) => match leaf {
                Leaf::Tid => lane.tid,
                Leaf::Bid => lane.bid,
                Leaf::N => lane.n,
                Leaf::M => lane.m,
                Leaf::K => K,
                Leaf::First => lane.first,
                Leaf::Lit(c) => i128::from(*c),
                Leaf::Varying(v) => lane.varying[v.index()],
            },
            Index::Add(a, b) => a.eval(lane)?.checked_add(b.eval(lane)?)?,
            Index::Mul(a, b) => a.eval(lane)?.checked_mul(b.eval(lane)?)?,
            Index::Div(a, b, c) => a.eval(lane)? / b.eval(lane)?.checked_add(i128::from(*c))?,
            Index::Rem(a, b, c) => a.eval(lane)? % b.eval(lane)?.checked_add(i128::from(*c))?,
        })
    }
}

/// The values one lane sees.
struct LaneValues {
    tid: i128,
    bid: i128,
    n: i128,
    m: i128,
    first: i128,
    varying: [i128; 6],
}

/// Concrete values for one run: the uniform unknowns, and per thread of the block a value of
/// each lane-varying source.
#[derive(Debug, Clone)]
struct Values {
    bid: i64,
    n: i64,
    m: i64,
    first: i64,
    varying: Vec<[i64; 6]>,
}

fn leaf() -> impl Strategy<Value = Leaf> {
    prop_oneof![
        3 => Just(Leaf::Tid),
        1 => Just(Leaf::Bid),
        1 => Just(Leaf::N),
        1 => Just(Leaf::M),
        1 => Just(Leaf::K),
        1 => Just(Leaf::First),
        2 => (0i64..=64).prop_map(Leaf::Lit),
        3 => prop::sample::select(VARYING.to_vec()).prop_map(Leaf::Varying),
    ]
}

fn index() -> impl Strategy<Value = Index> {
    leaf().prop_map(Index::Leaf).prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Index::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Index::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone(), 1i64..=64).prop_map(|(a, b, c)| Index::Div(Box::new(a), Box::new(b), c)),
            (inner.clone(), inner, 1i64..=64).prop_map(|(a, b, c)| Index::Rem(Box::new(a), Box::new(b), c)),
        ]
    })
}

fn values() -> impl Strategy<Value = Values> {
    (
        0i64..64,
        1i64..=300,
        1i64..=300,
        0i64..1000,
        prop::collection::vec(prop::array::uniform6(0i64..1000), BLOCK),
    )
        .prop_map(|(bid, n, m, first, varying)| Values {
            bid,
            n,
            m,
            first,
            varying,
        })
}

fn kernel_source(index: &Index) -> String {
    format!(
        "const K: usize = {K};
         #[kernel]
         pub unsafe fn k(a: &[f32], out: *mut f32, idx: &[u32], header: &[u32], n: usize, m: usize) {{
             let tid = thread::thread_idx_x() as usize;
             let bid = thread::block_idx_x() as usize;
             let first = header[bid] as usize;
             let gathered = idx[tid] as usize;
             let from_closure = (0..m).map(|s| s * n + tid).max().unwrap_or(0);
             let called = next_random();
             let matched = match tid % 3 {{ 0 => tid, r => r + 7 }};
             let mut stack = [(tid, 0usize); 2];
             while let Some((node, _)) = stack.pop() {{
                 if let Some(found) = lookup(node) {{
                     let v = a[{}];
                     *out.add(tid) = v;
                 }}
             }}
         }}",
        index.source()
    )
}

/// The class the analyzer gives the read of `a`.
fn class_of(index: &Index) -> (AccessClass, String) {
    let report = analyze_source(
        &SourceFile::new("prop.rs", kernel_source(index)),
        &LaunchPlan::default(),
    )
    .expect("generated kernel parses");
    let kernel = report
        .kernels
        .iter()
        .find(|k| k.name == "k")
        .expect("the kernel is found");
    let read = kernel
        .accesses
        .iter()
        .find(|a| a.array == "a" && a.op == Op::Load)
        .expect("the read of `a` is found");
    let prediction = read.prediction.as_ref().expect("a global access");
    (prediction.class, format!("{prediction:?}"))
}

/// Whether every warp of the block reads one address; `None` when a value overflows.
fn one_address_per_warp(index: &Index, values: &Values) -> Option<bool> {
    for warp in 0..BLOCK / 32 {
        let mut first_address = None;
        for lane in 0..32 {
            let tid = warp * 32 + lane;
            let here = LaneValues {
                tid: tid as i128,
                bid: i128::from(values.bid),
                n: i128::from(values.n),
                m: i128::from(values.m),
                first: i128::from(values.first),
                varying: values.varying[tid].map(i128::from),
            };
            let address = index.eval(&here)?;
            match first_address {
                None => first_address = Some(address),
                Some(a) if a == address => {}
                Some(_) => return Some(false),
            }
        }
    }
    Some(true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn broadcast_only_when_every_lane_reads_one_address(index in index(), values in values()) {
        let (class, detail) = class_of(&index);
        if class == AccessClass::Broadcast {
            let same = one_address_per_warp(&index, &values);
            prop_assume!(same.is_some());
            prop_assert_eq!(same, Some(true), "a[{}] {} {:?}", index.source(), detail, values);
        }
    }
}

#[test]
fn the_generated_kernel_gives_each_kind_of_verdict() {
    let leaf = |l| Box::new(Index::Leaf(l));
    // Uniform: the block index scaled by a parameter, plus the header value.
    let uniform = Index::Add(Box::new(Index::Mul(leaf(Leaf::Bid), leaf(Leaf::N))), leaf(Leaf::First));
    assert_eq!(class_of(&uniform).0, AccessClass::Broadcast);
    // The warp number: one address per warp.
    let per_warp = Index::Div(leaf(Leaf::Tid), leaf(Leaf::Lit(0)), 32);
    assert_eq!(class_of(&per_warp).0, AccessClass::Broadcast);
    // A lane-varying value cancelled by zero.
    let cancelled = Index::Mul(leaf(Leaf::Varying(Varying::Node)), leaf(Leaf::Lit(0)));
    assert_eq!(class_of(&cancelled).0, AccessClass::Broadcast);
    // Every lane-varying source is reported as unknown, the load as a gather.
    for v in VARYING {
        let expected = if v == Varying::Gathered {
            AccessClass::Gather
        } else {
            AccessClass::Unknown
        };
        assert_eq!(class_of(&Index::Leaf(Leaf::Varying(v))).0, expected, "{v:?}");
    }
    // Division by a runtime value: not a broadcast.
    let by_n = Index::Div(leaf(Leaf::Tid), leaf(Leaf::N), 1);
    assert_ne!(class_of(&by_n).0, AccessClass::Broadcast);
    let values = Values {
        bid: 3,
        n: 40,
        m: 2,
        first: 5,
        varying: vec![[0; 6]; BLOCK],
    };
    assert_eq!(one_address_per_warp(&by_n, &values), Some(false));
    assert_eq!(one_address_per_warp(&per_warp, &values), Some(true));
}
