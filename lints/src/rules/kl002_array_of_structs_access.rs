use crate::text::cost;
use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::{AccessClass, FieldOf, Prediction};

declare_lint! {
    /// ## What it does
    /// Finds accesses to one field of an array of structs, `particles[i].x`, where consecutive
    /// lanes are one struct size apart.
    ///
    /// ## Why is this bad?
    /// Each lane wants 4 bytes but the warp's addresses are spread over 32 × the struct size:
    /// reading `x` of a 24-byte particle costs 24 sectors per request where 4 would do
    /// (16.7 %). The rest of every sector is fetched and thrown away.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[repr(C)] struct Particle { x: f32, y: f32, z: f32, vx: f32, vy: f32, vz: f32 }
    /// let x = (*p.add(i)).x;
    /// ```
    /// Use instead: a structure of arrays (`struct Particles { x: *mut f32, vx: *mut f32, .. }`
    /// read as `*p.x.add(i)`), or, for structs of 8 or 16 bytes, `#[repr(C, align(16))]` and
    /// one copy of the whole element per lane.
    pub static ARRAY_OF_STRUCTS_ACCESS = {
        code: "KL002",
        name: "array-of-structs-access",
        level: Warn,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let p = cx.verdict(AccessClass::Aos)?;
    let field = cx.access.field_of.as_ref()?;
    if cx.whole_copy() {
        return Some(whole_copy(cx, p, field));
    }
    let help = if field.size.is_power_of_two() && field.size <= 16 {
        format!(
            "give `{}` `#[repr(C, align({}))]` and copy whole elements (one {}-byte load per lane), or store it as a structure of arrays",
            field.type_name, field.size, field.size
        )
    } else {
        format!(
            "store `{}` as a structure of arrays (one array per field) so that lanes read consecutive values",
            field.type_name
        )
    };
    Some(Finding {
        message: format!(
            "array-of-structs access `{}`: a {}-byte field of the {}-byte `{}`, {}",
            cx.element(),
            cx.access.elem_bytes,
            field.size,
            field.type_name,
            cost(p)
        ),
        label: format!("lanes are {} bytes apart", field.size),
        span: cx.access.span,
        help: Some(help),
        notes: cx.notes(p),
    })
}

/// Every byte of the element is used, but its alignment splits the copy into one access per
/// field: aligning it, not splitting it into arrays, makes the copy one wide load.
fn whole_copy(cx: &AccessContext<'_>, p: &Prediction, field: &FieldOf) -> Finding {
    let leaves = cx.leaves().count();
    let help = if field.size <= 16 {
        let align = field.size.next_power_of_two();
        let pad = if align == field.size {
            String::new()
        } else {
            format!(" (padding it to {align} bytes)")
        };
        format!(
            "every byte of `{}` is used: give it `#[repr(C, align({align}))]`{pad} so that each lane copies it with one {align}-byte load",
            field.type_name
        )
    } else {
        format!(
            "every byte of `{}` is used: give it `#[repr(C, align(16))]` so that each lane copies it in 16-byte pieces, or stage the elements through shared memory",
            field.type_name
        )
    };
    Finding {
        message: format!(
            "array-of-structs access `{}`: the whole {}-byte `{}` is copied as {leaves} narrower accesses, each {}",
            cx.element(),
            field.size,
            field.type_name,
            cost(p)
        ),
        label: format!("lanes are {} bytes apart", field.size),
        span: cx.access.span,
        help: Some(help),
        notes: cx.notes(p),
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{assert_clean, findings};

    #[test]
    fn field_of_a_24_byte_struct() {
        let found = findings(
            "KL002",
            "#[repr(C)] struct P { x: f32, y: f32, z: f32, vx: f32, vy: f32, vz: f32 }
             #[kernel] pub unsafe fn k(p: *mut P) { let i = thread::index_1d() as usize; let v = (*p.add(i)).vx; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "array-of-structs access `p[i].vx`: a 4-byte field of the 24-byte `P`, 24 sectors per request where 4 would do (16.7% efficiency)"
        );
        assert!(found[0]
            .help
            .as_deref()
            .unwrap()
            .starts_with("store `P` as a structure of arrays"));
    }

    #[test]
    fn wide_aligned_copy_is_fine() {
        assert_clean(
            "KL002",
            "#[repr(C, align(16))] struct F4 { x: f32, y: f32, z: f32, w: f32 }
             #[kernel] pub unsafe fn k(a: &[F4], out: *mut F4) { let i = thread::index_1d() as usize; *out.add(i) = a[i]; }",
            2,
        );
    }

    #[test]
    fn a_whole_struct_copy_suggests_alignment_once() {
        let found = findings(
            "KL002",
            "#[repr(C)] #[derive(Clone, Copy)] pub struct Q { x: f32, y: f32, z: f32 }
             #[kernel] pub unsafe fn k(queries: &[Q]) { let i = thread::index_1d() as usize; let q = queries[i]; }",
        );
        // One finding per leaf here; `check_file` keeps one per span.
        assert_eq!(found.len(), 3);
        assert_eq!(
            found[0].message,
            "array-of-structs access `queries[i]`: the whole 12-byte `Q` is copied as 3 narrower accesses, each 12 sectors per request where 4 would do (33.3% efficiency)"
        );
        assert_eq!(
            found[0].help.as_deref(),
            Some("every byte of `Q` is used: give it `#[repr(C, align(16))]` (padding it to 16 bytes) so that each lane copies it with one 16-byte load")
        );
    }

    #[test]
    fn a_whole_struct_copy_is_one_diagnostic() {
        let source = "#[repr(C)] #[derive(Clone, Copy)] pub struct Q { x: f32, y: f32, z: f32 }
             #[kernel] pub unsafe fn k(queries: &[Q]) { let i = thread::index_1d() as usize; let q = queries[i]; }";
        let file = kernel_lint_analyzer::SourceFile::new("snippet.rs", source);
        let report = kernel_lint_analyzer::analyze_source(&file, &kernel_lint_analyzer::LaunchPlan::default()).expect("parses");
        let found = crate::check_file(&report, &crate::LintLevels::default());
        let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].starts_with("array-of-structs access `queries[i]`: the whole"));
    }
}
