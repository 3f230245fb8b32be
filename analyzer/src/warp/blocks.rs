//! A block no launch, configuration or hint gives: the prediction under the assumed block is a
//! fact only where other blocks give the same verdict; elsewhere it is a case per block.

use super::verdict::{Case, Prediction};
use crate::algebra::{Atom, Axis};
use crate::interpret::Access;
use crate::model::launch::Dim3;

/// The two-dimensional blocks tried besides the assumed one, for kernels whose addresses use
/// a slower thread index: rows as wide as a warp, as wide as half a warp.
pub const OTHER_BLOCKS: [Dim3; 2] = [[32, 8, 1], [16, 16, 1]];

/// Why a figure that changes with the block has cases instead of one number.
pub const DEPENDS_ON_BLOCK: &str = "the figure depends on the block, which no launch, configuration or hint gives: add `// kernel-lint: block(x, y)` above the kernel for one number";

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
pub fn fold_blocks(prediction: &mut Prediction, assumed: Dim3, others: &[(Dim3, Option<&Prediction>)]) {
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
                        condition: format!("{} && {}", block_condition(*block), c.condition),
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
        without_figure.push(format!("{} ({})", block_condition(assumed), prediction.class.as_str()));
    }
    for (block, other) in others {
        match other {
            Some(q) => {
                let theirs = block_cases(*block, q);
                if theirs.is_empty() {
                    without_figure.push(format!("{} ({})", block_condition(*block), q.class.as_str()));
                }
                cases.extend(theirs);
                if worst_sectors(q) > worst.1 {
                    worst = (q.class, worst_sectors(q));
                }
            }
            None => without_figure.push(format!("{} (the access is not made)", block_condition(*block))),
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
    prediction.assumptions.push(DEPENDS_ON_BLOCK.to_string());
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
fn block_cases(block: Dim3, p: &Prediction) -> Vec<Case> {
    let condition = block_condition(block);
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
