use crate::text::figure;
use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::{BankClass, BankPrediction};

declare_lint! {
    /// ## What it does
    /// Finds shared-memory accesses whose lanes meet in one bank at different words: a column
    /// of a `[[f32; 32]; 32]` tile, `tile[tx][ty]`, or a row read at a stride of 2 words.
    ///
    /// ## Why is this bad?
    /// Shared memory has 32 banks of 4-byte words, and each bank serves one word per pass
    /// (a wavefront). Lanes that read the same word share it, but N distinct words in one bank
    /// take N passes: a column of a 32-wide `f32` tile is a 32-way conflict, 32 wavefronts per
    /// request where 1 would do. 8-byte accesses are served half a warp at a time (2 passes
    /// without conflict), 16-byte ones a quarter at a time (4).
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[address_space(shared)]
    /// static mut TILE: [[MaybeUninit<f32>; 32]; 32] = [[MaybeUninit::uninit(); 32]; 32];
    /// let v = TILE[tx][ty].assume_init();
    /// ```
    /// Use instead: pad each row by one element (`[[MaybeUninit<f32>; 33]; 32]`, or a row
    /// stride of 33 in a flat tile), so that a column falls in 32 different banks; where the
    /// layout cannot change, swizzle the column with the row (`TILE[r][c ^ r]` wherever the
    /// tile is indexed).
    pub static SHARED_BANK_CONFLICT = {
        code: "KL009",
        name: "shared-bank-conflict",
        level: Warn,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let b = cx.access.banks.as_ref().filter(|b| b.class == BankClass::Conflict)?;
    let element = cx.element();
    let message = match (b.degree, b.wavefronts_per_request, b.ideal_wavefronts_per_request) {
        (Some(degree), Some(w), Some(ideal)) => format!(
            "bank conflict on `{element}` ({degree}-way): {} wavefronts per request where {} would do",
            figure(w),
            figure(ideal)
        ),
        _ => {
            // Conditioned on a value: only worth a finding when some case conflicts.
            let ideal = b.ideal_wavefronts_per_request?;
            if b.cases.iter().all(|c| c.wavefronts_per_request <= ideal + 1e-9) {
                return None;
            }
            let cases: Vec<String> = b
                .cases
                .iter()
                .map(|c| format!("{} when {}", figure(c.wavefronts_per_request), c.condition))
                .collect();
            format!(
                "bank conflict on `{element}`: wavefronts per request: {} (ideal {})",
                cases.join(", "),
                figure(ideal)
            )
        }
    };
    Some(Finding {
        message,
        label: label(b),
        span: cx.access.index_span,
        help: Some(
            "pad each row of the tile by one element ([[T; 33]; 32], or a row stride of 33) so that a column spreads over the 32 banks, or swizzle the column with the row (`tile[r][c ^ r]`) wherever the tile is indexed"
                .to_string(),
        ),
        notes: notes(cx, b),
    })
}

fn label(b: &BankPrediction) -> String {
    match (b.degree, b.collision) {
        (Some(degree), Some(c)) => format!("{degree} distinct words in bank {}", c.bank),
        _ => "lanes meet in one bank".to_string(),
    }
}

/// Which lanes collide, then the launch and what the prediction assumed.
fn notes(cx: &AccessContext<'_>, b: &BankPrediction) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(c) = b.collision {
        notes.push(format!(
            "lanes {} and {} both in bank {} at words {} and {}",
            c.lanes[0], c.lanes[1], c.bank, c.words[0], c.words[1]
        ));
    }
    notes.push(crate::text::launch_note(cx.kernel));
    notes.extend(b.assumptions.iter().cloned());
    notes
}

#[cfg(test)]
mod tests {
    use crate::test_support::findings;

    const HEAD: &str = "// kernel-lint: block(32, 32)
        #[kernel] pub unsafe fn k(out: *mut f32) {
            #[address_space(shared)]
            static mut TILE: [[f32; ";

    #[test]
    fn a_column_of_an_unpadded_tile_is_a_32_way_conflict() {
        let source = format!(
            "{HEAD}32]; 32] = [[0.0; 32]; 32];
            let tx = thread::thread_idx_x() as usize; let ty = thread::thread_idx_y() as usize;
            TILE[ty][tx] = 1.0; thread::sync_threads();
            *out.add(ty * 32 + tx) = TILE[tx][ty]; }}"
        );
        let found = findings("KL009", &source);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "bank conflict on `TILE[tx][ty]` (32-way): 32 wavefronts per request where 1 would do"
        );
        assert_eq!(found[0].label, "32 distinct words in bank 0");
        assert_eq!(found[0].notes[0], "lanes 0 and 1 both in bank 0 at words 0 and 32");
    }

    #[test]
    fn a_padded_tile_has_no_finding() {
        let source = format!(
            "{HEAD}33]; 32] = [[0.0; 33]; 32];
            let tx = thread::thread_idx_x() as usize; let ty = thread::thread_idx_y() as usize;
            TILE[ty][tx] = 1.0; thread::sync_threads();
            *out.add(ty * 32 + tx) = TILE[tx][ty]; }}"
        );
        assert_eq!(findings("KL009", &source), Vec::new());
        let file = kernel_lint_analyzer::SourceFile::new("snippet.rs", source.as_str());
        let report =
            kernel_lint_analyzer::analyze_source(&file, &kernel_lint_analyzer::LaunchPlan::default()).expect("parses");
        let banks: Vec<_> = report.kernels[0]
            .accesses
            .iter()
            .filter_map(|a| a.banks.as_ref().map(|b| (b.class.as_str(), b.wavefronts_per_request)))
            .collect();
        assert_eq!(banks, vec![("conflict-free", Some(1.0)), ("conflict-free", Some(1.0))]);
    }

    #[test]
    fn a_runtime_stride_is_reported_per_case() {
        let source = "// kernel-lint: block(32)
            #[kernel] pub unsafe fn k(out: *mut f32, s: usize) {
                let tile = shared_array![f32; 1024];
                let tx = thread::thread_idx_x() as usize;
                *out.add(tx) = *tile.add(tx * s); }";
        let found = findings("KL009", source);
        assert_eq!(
            found[0].message,
            "bank conflict on `tile[tx * s]`: wavefronts per request: 1 when s == 1, 2 when s == 2, 4 when s == 4, 8 when s == 8, 16 when s == 16, 32 when s == 32 (ideal 1)"
        );
    }
}
