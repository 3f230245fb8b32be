//! Atomics written as calls: the methods of core's atomic types (`a.fetch_add(1, Relaxed)`)
//! and the `atomic_*` functions of the dialects (`spirv_std::arch::atomic_i_add(&mut x, 1)`,
//! a crate's `atomic_add_u32(&mut slot, 1)` when its body is not visible). Each reads and
//! writes its target, one load and one store at its address; what it returns is the value it
//! found there, which differs between lanes even at one address (the lanes take turns).

use super::{Interpreter, Op, Place, Value};
use crate::algebra::{Poly, READ_FROM_MEMORY};
use crate::model::layout::is_atomic_cell;

/// Read-modify-write methods of core's atomic types.
const ATOMIC_METHODS: &[&str] = &[
    "fetch_add",
    "fetch_sub",
    "fetch_and",
    "fetch_nand",
    "fetch_or",
    "fetch_xor",
    "fetch_max",
    "fetch_min",
    "fetch_update",
    "swap",
    "compare_exchange",
    "compare_exchange_weak",
];

/// What an atomic call does to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Load,
    Store,
    ReadModifyWrite,
}

impl Effect {
    /// The effect of a method of core's atomics, when `method` is one.
    fn of_method(method: &str) -> Option<Effect> {
        ATOMIC_METHODS.contains(&method).then_some(Effect::ReadModifyWrite)
    }

    /// The effect of an `atomic_*` function (`atomic_load`, `atomic_store`, `atomic_i_add`,
    /// `atomic_add_u32`), when `name` is one.
    fn of_function(name: &str) -> Option<Effect> {
        let op = name.strip_prefix("atomic_")?;
        Some(if op.starts_with("load") {
            Effect::Load
        } else if op.starts_with("store") {
            Effect::Store
        } else {
            Effect::ReadModifyWrite
        })
    }
}

impl<'a> Interpreter<'a> {
    /// `target.fetch_add(..)` and the other atomic methods on a place in memory (receiver and
    /// arguments already evaluated).
    pub(crate) fn atomic_method(&mut self, call: &syn::ExprMethodCall, receiver: &Value) -> Option<Value> {
        let method = call.method.to_string();
        let place = target_place(receiver)?;
        let atomic_type = place.layout.as_ref().is_some_and(|l| is_atomic_cell(&l.name));
        // An atomic cell's `load(order)` and `store(value, order)` are one access each.
        let effect = match (method.as_str(), call.args.len()) {
            ("load", 1) if atomic_type => Effect::Load,
            ("store", 2) if atomic_type => Effect::Store,
            _ => Effect::of_method(&method)?,
        };
        // `slice.swap(a, b)` is no atomic: only a value of an atomic type swaps atomically.
        if method == "swap" && !atomic_type {
            return None;
        }
        let span = self.span(call);
        Some(self.atomic(call, span, &place, effect))
    }

    /// `atomic_i_add(&mut target, v)` and the other `atomic_*` functions, their target first.
    pub(crate) fn atomic_function(&mut self, call: &syn::ExprCall, name: &str, args: &[Value]) -> Option<Value> {
        let effect = Effect::of_function(name)?;
        let place = target_place(args.first()?)?;
        // The access is the target's: `&mut entries[slot].state` may sit lines below the name.
        let target = match call.args.first()? {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let span = self.span(target);
        Some(self.atomic(call, span, &place, effect))
    }

    fn atomic(
        &mut self,
        call: &impl quote::ToTokens,
        span: crate::source::Span,
        place: &Place,
        effect: Effect,
    ) -> Value {
        if effect != Effect::Store {
            self.access(place, Op::Load, span);
        }
        if effect != Effect::Load {
            self.access(place, Op::Store, span);
        }
        if effect == Effect::Store {
            return Value::Unknown;
        }
        // An atomic load at one address gives every lane the same value; any other atomic
        // gives each lane what the lanes before it left.
        let lane = effect != Effect::Load || place.offset.is_lane_dependent();
        let id = self.fresh_id();
        Value::Int(Poly::opaque_because(id, self.text(call), lane, READ_FROM_MEMORY))
    }
}

/// The place an atomic acts on: a place or a pointer into global or shared memory.
fn target_place(value: &Value) -> Option<Place> {
    match value {
        Value::Place(p) => Some(p.clone()),
        Value::Pointer(p) => Some(Place::at(p)),
        _ => None,
    }
}
