//! A block no launch, configuration or hint gives, or one whose extents the launch sets at run
//! time: the prediction under the block assumed is a fact only where other blocks give the
//! same verdict; elsewhere it is a case per block.

use super::verdict::{Case, Prediction};
use crate::algebra::{Atom, Axis};
use crate::interpret::Access;
use crate::model::launch::Dim3;

/// The two-dimensional blocks tried besides the assumed one, for kernels whose addresses use
/// a slower thread index: rows as wide as a warp, as wide as half a warp.
pub const OTHER_BLOCKS: [Dim3; 2] = [[32, 8, 1], [16, 16, 1]];

/// Why a figure that changes with a block nothing gives has cases instead of one number.
pub const DEPENDS_ON_BLOCK: &str = "the figure depends on the block, which no launch, configuration or hint gives: add `// kernel-lint: block(x, y)` above the kernel for one number";

/// The blocks an access is predicted under: the one assumed first, each with the condition
/// that names it, and why the figure may depend on them.
pub struct BlockChoices {
    pub assumed: String,
    pub others: Vec<(Dim3, String)>,
    pub why: String,
}

impl BlockChoices {
    /// The blocks tried where nothing gives one: whole blocks are named.
    pub fn unknown(assumed: Dim3) -> BlockChoices {
        BlockChoices {
            assumed: block_condition(assumed),
            others: OTHER_BLOCKS.iter().map(|&b| (b, block_condition(b))).collect(),
            why: DEPENDS_ON_BLOCK.to_string(),
        }
    }

    /// The blocks tried where the launch sets the `unknown` extents at run time: every
    /// combination of `values` for them within the thread limit; only those extents are named.
    pub fn runtime_extents(assumed: Dim3, unknown: [bool; 3], values: &[u32], limit: u32) -> BlockChoices {
        let name = |block: Dim3| {
            let parts: Vec<String> = ["x", "y", "z"]
                .iter()
                .zip(unknown)
                .zip(block)
                .filter(|&((_, u), _)| u)
                .map(|((axis, _), v)| format!("block.{axis} == {v}"))
                .collect();
            parts.join(" && ")
        };
        let mut blocks = vec![assumed];
        for (axis, _) in unknown.iter().enumerate().filter(|(_, &u)| u) {
            blocks = blocks
                .iter()
                .flat_map(|b| {
                    values.iter().map(move |&v| {
                        let mut b = *b;
                        b[axis] = v;
                        b
                    })
                })
                .collect();
        }
        blocks.retain(|b| b.iter().product::<u32>() <= limit);
        blocks.dedup();
        let names: Vec<&str> = ["block.x", "block.y", "block.z"]
            .into_iter()
            .zip(unknown)
            .filter_map(|(n, u)| u.then_some(n))
            .collect();
        BlockChoices {
            assumed: name(assumed),
            others: blocks
                .into_iter()
                .filter(|&b| b != assumed)
                .map(|b| (b, name(b)))
                .collect(),
            why: format!(
                "the figure depends on {}, which the launch sets at run time",
                names.join(" and ")
            ),
        }
    }
}

/// Whether an access's address or guard uses the y or z thread index: then the block's shape
/// decides which threads share a warp.
pub fn spans_rows(accesses: &[Access]) -> bool {
    let mut found = false;
    let mut note = |a: &Atom| found |= matches!(a, Atom::ThreadIdx(Axis::Y | Axis::Z));
    for access in accesses {
        access.address.visit_atoms(&mut note);
        for guard in &access.guards {
            guard.visit_atoms(&mut note);
        }
    }
    found
}

/// Folds the predictions of one access under other blocks into its prediction under the
/// assumed block `assumed`: unchanged when every block gives the same verdict and figure,
/// else one case per block (and per value where a block's figure has cases of its own), no
/// headline figure, and the worst class.
pub fn fold_blocks(prediction: &mut Prediction, choices: &BlockChoices, others: &[Option<&Prediction>]) {
    let assumed = choices.assumed.as_str();
    let others: Vec<(&str, Option<&Prediction>)> = choices
        .others
        .iter()
        .map(|(_, name)| name.as_str())
        .zip(others.iter().copied())
        .collect();
    let same = |q: &Prediction| {
        q.class == prediction.class
            && q.sectors_per_request == prediction.sectors_per_request
            && q.cases == prediction.cases
    };
    if others.iter().all(|(_, q)| q.is_some_and(same)) {
        return;
    }
    // The same figure under every block: it stands; the cases that differ are added.
    let same_figure =
        |q: &Prediction| q.class == prediction.class && q.sectors_per_request == prediction.sectors_per_request;
    if prediction.sectors_per_request.is_some() && others.iter().all(|(_, q)| q.is_some_and(same_figure)) {
        let mut added = Vec::new();
        for (block, q) in others {
            for c in q.iter().flat_map(|q| &q.cases) {
                if !prediction.cases.contains(c) {
                    added.push(Case {
                        condition: format!("{block} && {}", c.condition),
                        class: c.class,
                        sectors_per_request: c.sectors_per_request,
                    });
                }
            }
        }
        prediction.cases.extend(added);
        return;
    }
    let mut cases = block_cases(assumed, prediction);
    let mut worst = (prediction.class, worst_sectors(prediction));
    let mut without_figure = Vec::new();
    if cases.is_empty() {
        without_figure.push(format!("{assumed} ({})", prediction.class.as_str()));
    }
    for (block, other) in others {
        match other {
            Some(q) => {
                let theirs = block_cases(block, q);
                if theirs.is_empty() {
                    without_figure.push(format!("{block} ({})", q.class.as_str()));
                }
                cases.extend(theirs);
                if worst_sectors(q) > worst.1 {
                    worst = (q.class, worst_sectors(q));
                }
            }
            None => without_figure.push(format!("{block} (the access is not made)")),
        }
    }
    if !without_figure.is_empty() {
        prediction
            .assumptions
            .push(format!("no figure under {}", without_figure.join(", ")));
    }
    prediction.class = worst.0;
    prediction.cases = cases;
    prediction.sectors_per_request = None;
    prediction.efficiency = None;
    prediction.block_footprint_sectors = None;
    prediction.block_footprint_ideal_sectors = None;
    prediction.warp_sample = None;
    prediction.assumptions.push(choices.why.clone());
}

fn worst_sectors(p: &Prediction) -> f64 {
    p.sectors_per_request
        .into_iter()
        .chain(p.cases.iter().map(|c| c.sectors_per_request))
        .fold(0.0, f64::max)
}

fn block_condition(block: Dim3) -> String {
    let [x, y, z] = block;
    format!("block == ({x}, {y}, {z})")
}

/// The cases of one block's prediction, each conditioned on the block.
fn block_cases(condition: &str, p: &Prediction) -> Vec<Case> {
    let condition = condition.to_string();
    let headline = p.sectors_per_request.map(|sectors| Case {
        condition: condition.clone(),
        class: p.class,
        sectors_per_request: sectors,
    });
    // The headline is one of the cases or their complement: those that repeat it go.
    let repeats = |c: &Case| p.sectors_per_request == Some(c.sectors_per_request) && c.class == p.class;
    let own = p.cases.iter().filter(|c| !repeats(c)).map(|c| Case {
        condition: format!("{condition} && {}", c.condition),
        class: c.class,
        sectors_per_request: c.sectors_per_request,
    });
    headline.into_iter().chain(own).collect()
}
