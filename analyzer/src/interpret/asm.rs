//! Inline assembly (`asm!`, cuda-oxide's `ptx_asm!`): each load, store or atomic of its template
//! is an access at the address operand it names. PTX says how wide (`ld.global.nc.v4.u32`
//! reads 16 bytes, `atom.global.add.f32` reads and writes 4); SPIR-V (rust-gpu: `OpLoad`,
//! `OpStore`, `OpAtomicIAdd`, ..) moves the operand's pointee. A store to a lane's own variable
//! (`OpStore {old} %old` with `old = in(reg) &mut old`) and an output operand set that
//! variable: to a value read from memory when the template reads memory (an atomic's result
//! differs between lanes even at one address), else to a value the analysis does not follow.

use super::geometry::GeometryValue;
use super::{Interpreter, MemorySpace, Op, Place, Value};
use crate::algebra::{Poly, READ_FROM_MEMORY};
use crate::model::layout::Layout;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::Expr;

/// One memory instruction of a template: what it does, in which state space, how many bytes
/// one lane moves, and the operand holding the address (by position, or by name for `asm!`).
#[derive(Debug, PartialEq)]
struct MemoryInstruction {
    ops: Vec<Op>,
    space: Option<MemorySpace>,
    bytes: u64,
    address: OperandRef,
}

#[derive(Debug, PartialEq)]
enum OperandRef {
    Position(usize),
    Name(String),
}

/// An operand of the macro: its name (`x = in(reg) p`), its expression, and whether the
/// template writes it (`out`, `inout`, `lateout`, `inlateout`).
struct AsmOperand {
    name: Option<String>,
    expr: TokenStream,
    output: bool,
}

/// What a template's instructions did to memory, for the values it leaves in variables.
#[derive(Default)]
struct Effects {
    /// It read memory (a load or an atomic).
    read: bool,
    /// The value read may differ between lanes: an atomic, or a load at a per-lane address.
    per_lane: bool,
    /// The lane's own variables it stored to.
    stored: Vec<String>,
    /// Operands it set to a special register (`mov.u32 {}, %tid.x;`), with the register's
    /// geometry function.
    registers: Vec<(OperandRef, String)>,
}

impl Interpreter<'_> {
    /// The accesses of an inline-assembly macro; `false` when its tokens are not a template
    /// and operands this reads.
    pub(crate) fn inline_asm(&mut self, mac: &syn::Macro) -> bool {
        let Some((template, operands)) = split(mac.tokens.clone()) else {
            return false;
        };
        let span = self.span(mac);
        let mut effects = Effects::default();
        let mut implicit = 0;
        for line in template.split([';', '\n']) {
            if let Some(register) = special_register_move(line, implicit) {
                effects.registers.push(register);
            }
            implicit += line.matches("{}").count();
            if let Some(moves) = spirv_instruction(line) {
                // An atomic reads and writes one place; the lanes take turns at it.
                effects.per_lane |= moves.len() == 2 && moves[0].1 == moves[1].1;
                for (op, address) in moves {
                    self.spirv_access(mac, line, op, &address, &operands, span, &mut effects);
                }
                continue;
            }
            let Some(instruction) = memory_instruction(line) else {
                if moves_memory(line) {
                    let line = line.trim();
                    self.unsupported(
                        mac,
                        format!("inline assembly `{line}` is not read: its access is not analyzed"),
                    );
                }
                continue;
            };
            let Some(expr) = operand_expr(&operands, &instruction.address) else {
                self.unsupported(
                    mac,
                    "an inline-assembly access whose address operand is not read".into(),
                );
                continue;
            };
            let Some(place) = self.addressed_place(mac, &expr, true) else {
                continue;
            };
            let place = Place {
                layout: Some(Layout::primitive(
                    &format!("asm {} bytes", instruction.bytes),
                    instruction.bytes,
                )),
                space: instruction.space.unwrap_or(place.space),
                ..place
            };
            if instruction.ops.contains(&Op::Load) {
                effects.read = true;
                effects.per_lane |= instruction.ops.len() > 1 || place.offset.is_lane_dependent();
            }
            for op in instruction.ops {
                self.access(&place, op, span);
            }
        }
        self.set_asm_outputs(&operands, &effects);
        true
    }

    /// One SPIR-V access of an `asm!` template at the operand `address` names: an access of
    /// the place it points to, or a store to the lane's own variable when it points to one.
    #[allow(clippy::too_many_arguments)]
    fn spirv_access(
        &mut self,
        mac: &syn::Macro,
        line: &str,
        op: Op,
        address: &OperandRef,
        operands: &[AsmOperand],
        span: crate::source::Span,
        effects: &mut Effects,
    ) {
        let Some(expr) = operand_expr(operands, address) else {
            let line = line.trim();
            self.unsupported(
                mac,
                format!("inline assembly `{line}` is not read: its access is not analyzed"),
            );
            return;
        };
        if let Some(local) = self.own_variable(&expr) {
            if op == Op::Store {
                effects.stored.push(local);
            }
            return;
        }
        let Some(place) = self.addressed_place(mac, &expr, false) else {
            return;
        };
        if op == Op::Load {
            effects.read = true;
            effects.per_lane |= place.offset.is_lane_dependent();
        }
        self.access(&place, op, span);
    }

    /// The place an address operand points to; a note when the analysis cannot follow it
    /// (shown in brackets, as PTX writes an address, when `bracketed`).
    fn addressed_place(&mut self, mac: &syn::Macro, expr: &Expr, bracketed: bool) -> Option<Place> {
        match self.value(expr) {
            Value::Pointer(p) => Some(Place::at(&p)),
            Value::Place(p) => Some(p),
            _ => {
                let text = self.text(expr);
                let shown = if bracketed { format!("[{text}]") } else { text };
                self.unsupported(
                    mac,
                    format!("inline assembly accesses `{shown}`, an address the analysis cannot follow"),
                );
                None
            }
        }
    }

    /// The variable `&mut x` or `&x` refers to, when `x` is a lane's own (not a buffer).
    fn own_variable(&self, expr: &Expr) -> Option<String> {
        let Expr::Reference(r) = expr else { return None };
        let Expr::Path(p) = &*r.expr else { return None };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Value::Pointer(_) | Value::Place(_)) => None,
            _ => Some(name),
        }
    }

    /// The variables a template leaves a value in: its output operands and the lane's own
    /// variables it stored to.
    fn set_asm_outputs(&mut self, operands: &[AsmOperand], effects: &Effects) {
        // A special register read into an operand: the thread, block or lane index it holds.
        for (operand, register) in &effects.registers {
            let Some(Expr::Path(p)) = operand_expr(operands, operand) else {
                continue;
            };
            let (Some(name), Some(GeometryValue::Scalar(value))) = (p.path.get_ident(), self.geometry.call(register))
            else {
                continue;
            };
            self.assign(&name.to_string(), Value::Int(value));
        }
        let set: Vec<String> = effects
            .registers
            .iter()
            .filter_map(|(o, _)| match operand_expr(operands, o)? {
                Expr::Path(p) => Some(p.path.get_ident()?.to_string()),
                _ => None,
            })
            .collect();
        let mut names: Vec<String> = operands
            .iter()
            .filter(|o| o.output)
            .filter_map(|o| match syn::parse2::<Expr>(o.expr.clone()).ok()? {
                Expr::Path(p) => Some(p.path.get_ident()?.to_string()),
                _ => None,
            })
            .collect();
        names.extend(effects.stored.iter().cloned());
        for name in names.into_iter().filter(|n| !set.contains(n)) {
            let text = format!("the value inline assembly leaves in `{name}`");
            let value = if effects.read {
                let id = self.fresh_id();
                Poly::opaque_because(id, text, effects.per_lane, READ_FROM_MEMORY)
            } else {
                self.opaque(text, true)
            };
            self.assign(&name, Value::Int(value));
        }
    }
}

/// The memory moves of one line of SPIR-V, if it is an instruction that moves memory: each
/// with the operand holding its address. `OpLoad` and `OpAtomicLoad` read at their second
/// operand (after the result type), `OpStore` and `OpAtomicStore` write at their first, the
/// other `OpAtomic*` read and write at their second, `OpCopyMemory` writes its first and
/// reads its second.
fn spirv_instruction(line: &str) -> Option<Vec<(Op, OperandRef)>> {
    let line = line.trim();
    let instruction = match line.split_once('=') {
        Some((result, rest)) if result.trim().starts_with('%') => rest.trim(),
        _ => line,
    };
    let mut words = instruction.split_whitespace();
    let opcode = words.next()?;
    if !opcode.starts_with("Op") {
        return None;
    }
    let operands: Vec<&str> = words.collect();
    let at = |i: usize| -> OperandRef {
        let word = operands.get(i).copied().unwrap_or("");
        match word.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
            Some(name) => match name.parse() {
                Ok(n) => OperandRef::Position(n),
                Err(_) => OperandRef::Name(name.split(':').next().unwrap_or(name).to_string()),
            },
            // A SPIR-V id made inside the template: no Rust operand to follow.
            None => OperandRef::Name(String::new()),
        }
    };
    Some(match opcode {
        "OpLoad" | "OpAtomicLoad" => vec![(Op::Load, at(1))],
        "OpStore" | "OpAtomicStore" => vec![(Op::Store, at(0))],
        "OpCopyMemory" | "OpCopyMemorySized" => vec![(Op::Store, at(0)), (Op::Load, at(1))],
        op if op.starts_with("OpAtomic") && !op.starts_with("OpAtomicFlag") => {
            vec![(Op::Load, at(1)), (Op::Store, at(1))]
        }
        _ => return None,
    })
}

/// The expression of the operand an instruction's address names, by position or by name.
fn operand_expr(operands: &[AsmOperand], address: &OperandRef) -> Option<Expr> {
    let operand = match address {
        OperandRef::Position(i) => operands.get(*i),
        OperandRef::Name(n) => operands.iter().find(|o| o.name.as_deref() == Some(n.as_str())),
    }?;
    syn::parse2::<Expr>(operand.expr.clone()).ok()
}

/// The template (string literals joined by newlines) and the operands, in order, of the
/// tokens of `asm!(..)`; clobbers and options are not operands.
fn split(tokens: TokenStream) -> Option<(String, Vec<AsmOperand>)> {
    let mut parts: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Vec::new()),
            _ => parts.last_mut()?.push(token),
        }
    }
    let mut template = Vec::new();
    let mut operands = Vec::new();
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        if let [TokenTree::Literal(lit)] = part.as_slice() {
            if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&lit.to_string()) {
                template.push(s.value());
                continue;
            }
        }
        // `name = in(reg) expr`.
        let (name, rest) = match part.as_slice() {
            [TokenTree::Ident(n), TokenTree::Punct(eq), rest @ ..] if eq.as_char() == '=' => {
                (Some(n.to_string()), rest)
            }
            rest => (None, rest),
        };
        let [TokenTree::Ident(kind), TokenTree::Group(class), expr @ ..] = rest else {
            continue;
        };
        let kind = kind.to_string();
        let is_operand = matches!(kind.as_str(), "in" | "out" | "inout" | "lateout" | "inlateout");
        if !is_operand || class.delimiter() != Delimiter::Parenthesis {
            continue;
        }
        // `inout(reg) a => b`: the input's expression is the address.
        let expr: TokenStream = expr
            .iter()
            .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == '=' ))
            .cloned()
            .collect();
        operands.push(AsmOperand {
            name,
            expr,
            output: kind != "in",
        });
    }
    (!template.is_empty()).then(|| (template.join("\n"), operands))
}

/// The operand a line of PTX moves a special register into (`mov.u32 {}, %tid.x;`), with the
/// geometry function that register is; `implicit` counts the `{}` placeholders before the line.
fn special_register_move(line: &str, implicit: usize) -> Option<(OperandRef, String)> {
    let (opcode, rest) = line.trim().split_once(char::is_whitespace)?;
    if opcode.split('.').next()? != "mov" {
        return None;
    }
    let (destination, source) = rest.split_once(',')?;
    let (register, axis) = match source.trim().strip_prefix('%')?.split_once('.') {
        Some((register, axis)) => (register, Some(axis)),
        None => (source.trim().strip_prefix('%')?, None),
    };
    let function = match (register, axis) {
        ("tid", Some(a @ ("x" | "y" | "z"))) => format!("thread_idx_{a}"),
        ("ntid", Some(a @ ("x" | "y" | "z"))) => format!("block_dim_{a}"),
        ("ctaid", Some(a @ ("x" | "y" | "z"))) => format!("block_idx_{a}"),
        ("nctaid", Some(a @ ("x" | "y" | "z"))) => format!("grid_dim_{a}"),
        ("laneid", None) => "lane_id".to_string(),
        _ => return None,
    };
    let destination = destination.trim();
    let operand = if destination == "{}" {
        OperandRef::Position(implicit)
    } else if let Some(n) = destination.strip_prefix('%') {
        OperandRef::Position(n.parse().ok()?)
    } else {
        let name = destination.strip_prefix('{')?.strip_suffix('}')?;
        match name.parse() {
            Ok(n) => OperandRef::Position(n),
            Err(_) => OperandRef::Name(name.split(':').next()?.to_string()),
        }
    };
    Some((operand, function))
}

/// The memory instruction one line of PTX is, if it is one: `ld`, `st`, `atom` or `red` with
/// a state space, a vector width and a type, and `[operand]` as its address.
fn memory_instruction(line: &str) -> Option<MemoryInstruction> {
    let line = line.trim();
    let (opcode, rest) = line.split_once(char::is_whitespace)?;
    let mut parts = opcode.split('.');
    let ops = match parts.next()? {
        "ld" => vec![Op::Load],
        "st" => vec![Op::Store],
        "atom" | "red" => vec![Op::Load, Op::Store],
        _ => return None,
    };
    let mut space = None;
    let mut lanes = 1;
    let mut bytes = None;
    for part in parts {
        match part {
            "global" => space = Some(MemorySpace::Global),
            "shared" => space = Some(MemorySpace::Shared),
            "const" => space = Some(MemorySpace::Constant),
            // Kernel parameters and a lane's own stack are not memory the warp model reads.
            "param" | "local" => return None,
            "v2" => lanes = 2,
            "v4" => lanes = 4,
            p => {
                if let Some(width) = type_bytes(p) {
                    bytes = Some(width);
                }
            }
        }
    }
    let inside = rest.split_once('[')?.1.split_once(']')?.0;
    let operand = inside.split('+').next()?.trim();
    let address = if let Some(n) = operand.strip_prefix('%') {
        OperandRef::Position(n.parse().ok()?)
    } else {
        let name = operand.strip_prefix('{')?.strip_suffix('}')?;
        match name.parse() {
            Ok(n) => OperandRef::Position(n),
            Err(_) => OperandRef::Name(name.split(':').next()?.to_string()),
        }
    };
    Some(MemoryInstruction {
        ops,
        space,
        bytes: bytes? * lanes,
        address,
    })
}

/// Whether a line of PTX moves memory the warp model reads (a load, store or atomic outside
/// the parameter and local spaces), whether or not [`memory_instruction`] could read it.
fn moves_memory(line: &str) -> bool {
    let opcode = line.split_whitespace().next().unwrap_or("");
    let mut parts = opcode.split('.');
    matches!(parts.next(), Some("ld" | "st" | "atom" | "red")) && !parts.any(|p| matches!(p, "param" | "local"))
}

/// Bytes of a PTX type suffix (`u32`, `f64`, `b128`).
fn type_bytes(suffix: &str) -> Option<u64> {
    let kind = suffix.chars().next()?;
    if !matches!(kind, 'u' | 's' | 'b' | 'f') {
        return None;
    }
    let bits: u64 = suffix[1..].parse().ok()?;
    matches!(bits, 8 | 16 | 32 | 64 | 128).then_some(bits / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_stores_and_atomics_are_read_with_their_width() {
        let v4 = memory_instruction("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];").expect("a load");
        assert_eq!(
            v4,
            MemoryInstruction {
                ops: vec![Op::Load],
                space: Some(MemorySpace::Global),
                bytes: 16,
                address: OperandRef::Position(4),
            }
        );
        let store = memory_instruction("st.shared.f64 [{ptr}+8], {v};").expect("a store");
        assert_eq!(
            (store.ops, store.space, store.bytes, store.address),
            (
                vec![Op::Store],
                Some(MemorySpace::Shared),
                8,
                OperandRef::Name("ptr".into())
            )
        );
        let atom = memory_instruction("atom.global.add.f32 {0}, [{1}], {2};").expect("an atomic");
        assert_eq!((atom.ops, atom.bytes), (vec![Op::Load, Op::Store], 4));
        assert_eq!(memory_instruction("mov.u32 %0, %tid.x;"), None);
        assert_eq!(memory_instruction("ld.param.u64 %0, [p];"), None);
        assert!(!moves_memory("ld.param.u64 %0, [p];"));
        // A register address is not an operand: the load is one the analysis says it skips.
        assert_eq!(memory_instruction("ld.global.u32 %0, [%rd1];"), None);
        assert!(moves_memory("ld.global.u32 %0, [%rd1];"));
    }

    #[test]
    fn an_access_the_template_holds_but_this_cannot_read_is_a_note() {
        let src = "#[kernel]\npub unsafe fn k(out: *mut u32) {\n    let i = thread::index_1d() as usize;\n    \
                   let x: u32;\n    asm!(\"ld.global.u32 {0}, [%rd1];\", out(reg32) x);\n    *out.add(i) = x;\n}\n";
        let report =
            crate::analyze_source(&crate::SourceFile::new("k.rs", src), &crate::LaunchPlan::default()).expect("parses");
        let kernel = &report.kernels[0];
        let notes: Vec<(usize, &str)> = kernel
            .unsupported
            .iter()
            .map(|u| (u.span.line, u.message.as_str()))
            .collect();
        assert_eq!(
            notes,
            [(
                5,
                "inline assembly `ld.global.u32 {0}, [%rd1]` is not read: its access is not analyzed"
            )]
        );
        assert_eq!(kernel.accesses.len(), 1, "the store to `out` only");
    }

    #[test]
    fn a_special_register_moved_into_an_operand_is_the_index_it_holds() {
        let src = "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn k(out: *mut f32) {\n    \
                   let tid: u32;\n    let bid: u32;\n    \
                   asm!(\"mov.u32 {}, %tid.x;\", out(reg32) tid);\n    \
                   asm!(\"mov.u32 {b}, %ctaid.x;\", b = out(reg32) bid);\n    \
                   *out.add((bid * 64 + tid) as usize) = 1.0;\n}\n";
        let report =
            crate::analyze_source(&crate::SourceFile::new("k.rs", src), &crate::LaunchPlan::default()).expect("parses");
        let access = &report.kernels[0].accesses[0];
        let p = access.prediction.as_ref().expect("global");
        assert_eq!(
            (p.class, p.sectors_per_request),
            (crate::AccessClass::Coalesced, Some(4.0))
        );
        assert_eq!(
            special_register_move("mov.u32 %2, %ntid.y", 0),
            Some((OperandRef::Position(2), "block_dim_y".to_string()))
        );
        assert_eq!(special_register_move("mov.u32 {}, %clock", 0), None);
    }

    #[test]
    fn spirv_instructions_name_their_address_operand() {
        assert_eq!(
            spirv_instruction("%old = OpAtomicIIncrement _ {ptr} %scope %semantics"),
            Some(vec![
                (Op::Load, OperandRef::Name("ptr".into())),
                (Op::Store, OperandRef::Name("ptr".into()))
            ])
        );
        assert_eq!(
            spirv_instruction("OpStore {old} %old"),
            Some(vec![(Op::Store, OperandRef::Name("old".into()))])
        );
        assert_eq!(
            spirv_instruction("%v = OpLoad _ {0}"),
            Some(vec![(Op::Load, OperandRef::Position(0))])
        );
        assert_eq!(spirv_instruction("%u32 = OpTypeInt 32 0"), None);
        assert_eq!(spirv_instruction("ld.global.u32 {0}, [{1}];"), None);
    }

    #[test]
    fn a_spirv_atomic_reads_and_writes_its_target_and_returns_a_value_per_lane() {
        // A helper increments a shared counter in inline SPIR-V and stores the old value to a
        // variable of its own; that value, a slot each lane takes in turn, indexes the output.
        let src = r#"
#[spirv(compute(threads(64)))]
pub fn append(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] count: &mut [u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] out: &mut [u32],
) {
    let slot = bump(&mut count[0]);
    out[slot as usize] = id.x;
}

fn bump(counter: &mut u32) -> u32 {
    let mut old = 0u32;
    unsafe {
        asm! {
            "%u32 = OpTypeInt 32 0",
            "%scope = OpConstant %u32 1",
            "%semantics = OpConstant %u32 0",
            "%old = OpAtomicIIncrement _ {ptr} %scope %semantics",
            "OpStore {old} %old",
            ptr = in(reg) counter,
            old = in(reg) &mut old,
        }
    }
    old
}
"#;
        let report =
            crate::analyze_source(&crate::SourceFile::new("k.rs", src), &crate::LaunchPlan::default()).expect("parses");
        let kernel = &report.kernels[0];
        assert!(kernel.unsupported.is_empty(), "{:?}", kernel.unsupported);
        let rows: Vec<(usize, &str, Op, Option<crate::AccessClass>)> = kernel
            .accesses
            .iter()
            .map(|a| {
                (
                    a.span.line,
                    a.array.as_str(),
                    a.op,
                    a.prediction.as_ref().map(|p| p.class),
                )
            })
            .collect();
        use crate::AccessClass::{Broadcast, Gather};
        assert_eq!(
            rows,
            [
                (15, "count", Op::Load, Some(Broadcast)),
                (15, "count", Op::Store, Some(Broadcast)),
                (9, "out", Op::Store, Some(Gather)),
            ]
        );
    }

    #[test]
    fn operands_are_counted_in_order_and_clobbers_are_not() {
        let tokens: TokenStream =
            r#""ld.global.v2.f32 {%0, %1}, [%2];", out("=f") a, out("=f") b, in("l") base.add(i), clobber("memory")"#
                .parse()
                .expect("tokens");
        let (template, operands) = split(tokens).expect("a template");
        assert_eq!(template, "ld.global.v2.f32 {%0, %1}, [%2];");
        let exprs: Vec<String> = operands.iter().map(|o| o.expr.to_string()).collect();
        assert_eq!(exprs, ["a", "b", "base . add (i)"]);
    }
}
