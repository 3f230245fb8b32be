//! What a `for` loop iterates, item by item: a range (`start + n * step` in iteration `n`), the
//! elements of a slice (a reference to element `first + n * step`, or its value once
//! `.copied()`), its chunks or windows (sub-slices), and the adaptors over them (`step_by`,
//! `skip`, `take`, `rev`, `zip`, `enumerate`, `map`). Anything else gives opaque items, the
//! same for every lane only when the iterator is.

use super::value::why;
use super::{Interpreter, Place, Pointer, Value};
use crate::algebra::{Atom, CmpOp, Poly, Predicate};
use crate::source::Span;
use syn::Expr;

/// An iterator, as a rule for its item in iteration `n`.
#[derive(Clone)]
pub(super) enum Seq<'e> {
    /// `start + n * step`, while the condition on it holds.
    Range {
        start: Poly,
        step: Poly,
        end: Option<(CmpOp, Poly)>,
    },
    /// A reference to element `first + n * step` of a slice; its value when `copied`. `at` is
    /// where the loop names the slice.
    Elements {
        slice: Pointer,
        first: Poly,
        step: Poly,
        copied: bool,
        at: Span,
    },
    /// The sub-slice of `len` elements starting at element `n * stride` (`chunks`, `windows`).
    Slices { slice: Pointer, len: Poly, stride: Poly },
    /// Pairs of the two iterators' items.
    Zip(Box<Seq<'e>>, Box<Seq<'e>>),
    /// The position (`first + n * step`: a `step_by` after `enumerate` skips positions too)
    /// and the item.
    Enumerate {
        inner: Box<Seq<'e>>,
        first: Poly,
        step: Poly,
    },
    /// Each item through a closure.
    Map(Box<Seq<'e>>, &'e syn::ExprClosure),
    /// Items the analysis does not follow; `lane` when they may differ between lanes.
    Items { lane: bool },
}

impl Seq<'_> {
    /// Whether the items may differ between lanes.
    pub(super) fn is_lane_dependent(&self) -> bool {
        match self {
            Seq::Range { start, step, end } => {
                start.is_lane_dependent()
                    || step.is_lane_dependent()
                    || end.as_ref().is_some_and(|(_, end)| end.is_lane_dependent())
            }
            Seq::Elements { slice, first, step, .. } => {
                slice.offset.is_lane_dependent() || first.is_lane_dependent() || step.is_lane_dependent()
            }
            Seq::Slices { slice, len, stride } => {
                slice.offset.is_lane_dependent() || len.is_lane_dependent() || stride.is_lane_dependent()
            }
            Seq::Zip(a, b) => a.is_lane_dependent() || b.is_lane_dependent(),
            Seq::Enumerate { inner, .. } | Seq::Map(inner, _) => inner.is_lane_dependent(),
            Seq::Items { lane } => *lane,
        }
    }

    /// The condition under which iteration `n` runs, when the iterator says.
    pub(super) fn guard(&self, n: &Poly) -> Option<Predicate> {
        match self {
            Seq::Range {
                start,
                step,
                end: Some((op, end)),
            } => Some(Predicate::Cmp(*op, start.add(&n.mul(step)), end.clone())),
            Seq::Zip(a, b) => match (a.guard(n), b.guard(n)) {
                (Some(a), Some(b)) => Some(Predicate::And(Box::new(a), Box::new(b))),
                (a, b) => a.or(b),
            },
            // Elements past the slice's end are not reached, when its length is known.
            Seq::Elements { slice, first, step, .. } => {
                let len = slice.len.clone()?;
                Some(Predicate::Cmp(CmpOp::Lt, first.add(&n.mul(step)), len))
            }
            Seq::Slices { slice, stride, .. } => {
                let len = slice.len.clone()?;
                Some(Predicate::Cmp(CmpOp::Lt, n.mul(stride), len))
            }
            Seq::Enumerate { inner, .. } | Seq::Map(inner, _) => inner.guard(n),
            Seq::Range { end: None, .. } | Seq::Items { .. } => None,
        }
    }

    /// Every `step`-th item.
    fn step_by(mut self, by: Poly) -> Self {
        match &mut self {
            Seq::Range { step, .. } | Seq::Elements { step, .. } | Seq::Slices { stride: step, .. } => {
                *step = step.mul(&by);
                return self;
            }
            Seq::Items { .. } => return self,
            _ => {}
        }
        match self {
            Seq::Enumerate { inner, first, step } => Seq::Enumerate {
                inner: Box::new(inner.step_by(by.clone())),
                first,
                step: step.mul(&by),
            },
            Seq::Zip(a, b) => Seq::Zip(Box::new(a.step_by(by.clone())), Box::new(b.step_by(by))),
            Seq::Map(inner, f) => Seq::Map(Box::new(inner.step_by(by)), f),
            other => other,
        }
    }

    /// The items after the first `count`.
    fn skip(mut self, count: Poly) -> Self {
        match &mut self {
            Seq::Range { start: first, step, .. } | Seq::Elements { first, step, .. } => {
                *first = first.add(&count.mul(step));
                return self;
            }
            Seq::Slices { slice, stride, .. } => {
                let size = element_size(slice);
                slice.offset = slice.offset.add(&count.mul(stride).scale(size));
                return self;
            }
            Seq::Items { .. } => return self,
            _ => {}
        }
        match self {
            Seq::Enumerate { inner, first, step } => Seq::Enumerate {
                inner: Box::new(inner.skip(count.clone())),
                first: first.add(&count.mul(&step)),
                step,
            },
            Seq::Zip(a, b) => Seq::Zip(Box::new(a.skip(count.clone())), Box::new(b.skip(count))),
            Seq::Map(inner, f) => Seq::Map(Box::new(inner.skip(count)), f),
            other => other,
        }
    }

    /// The items in reverse: a range whose end is known runs down from it; anything else
    /// gives items the analysis does not follow.
    fn rev(self) -> Self {
        match self {
            Seq::Range {
                start,
                step,
                end: Some((op, end)),
            } if step.as_constant() == Some(1) => {
                let top = if op == CmpOp::Le {
                    end
                } else {
                    end.sub(&Poly::constant(1))
                };
                Seq::Range {
                    start: top,
                    step: Poly::constant(-1),
                    end: Some((CmpOp::Ge, start)),
                }
            }
            other => Seq::Items {
                lane: other.is_lane_dependent(),
            },
        }
    }
}

fn element_size(slice: &Pointer) -> i64 {
    slice.elem.as_ref().map_or(4, |l| l.size) as i64
}

impl<'e> Interpreter<'_> {
    /// The iterator an expression gives.
    pub(super) fn sequence(&mut self, expr: &'e Expr) -> Seq<'e> {
        match expr {
            Expr::Paren(p) => self.sequence(&p.expr),
            Expr::Reference(r) => self.sequence(&r.expr),
            Expr::Range(r) => {
                let start = r.start.as_ref().map_or(Poly::default(), |s| self.int(s));
                let end = r.end.as_ref().map(|e| {
                    let end = self.int(e);
                    let op = if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                        CmpOp::Le
                    } else {
                        CmpOp::Lt
                    };
                    (op, end)
                });
                Seq::Range {
                    start,
                    step: Poly::constant(1),
                    end,
                }
            }
            Expr::MethodCall(m) => self.adapted(m),
            Expr::Call(call) if arithmetic_successors(call).is_some() => {
                let (start, step) = arithmetic_successors(call).unwrap_or((&call.args[0], &call.args[0]));
                Seq::Range {
                    start: self.int(start),
                    step: self.int(step),
                    end: None,
                }
            }
            other => {
                let at = self.span(other);
                // A slice wrapper (`struct Buf<'a, T> { ptr: &'a [T] }` with `Deref`) iterates
                // the slice it holds.
                let names_place = matches!(other, Expr::Path(_) | Expr::Field(_));
                if let Some(Value::Place(p)) = names_place.then(|| self.dry_operand(other)) {
                    if self.derefs_through_pointer(&p) {
                        if let Some(pointer) = self.pointer_of_wrapper(&p, other) {
                            return self.of_value(pointer, at);
                        }
                    }
                }
                let value = self.value(other);
                self.of_value(value, at)
            }
        }
    }

    /// A slice (or a reference to one) iterates its elements by reference.
    fn of_value(&mut self, value: Value, at: Span) -> Seq<'e> {
        match value {
            Value::Pointer(slice) => Seq::Elements {
                slice,
                first: Poly::default(),
                step: Poly::constant(1),
                copied: false,
                at,
            },
            other => Seq::Items {
                lane: other.is_lane_dependent(),
            },
        }
    }

    fn adapted(&mut self, m: &'e syn::ExprMethodCall) -> Seq<'e> {
        let method = m.method.to_string();
        let arg = |this: &mut Self, i: usize| m.args.get(i).map(|a| this.int(a));
        match method.as_str() {
            "iter" | "iter_mut" | "into_iter" | "by_ref" => self.sequence(&m.receiver),
            "copied" | "cloned" => match self.sequence(&m.receiver) {
                Seq::Elements {
                    slice, first, step, at, ..
                } => Seq::Elements {
                    slice,
                    first,
                    step,
                    copied: true,
                    at,
                },
                other => other,
            },
            "step_by" => {
                let inner = self.sequence(&m.receiver);
                let by = arg(self, 0).unwrap_or_else(|| Poly::constant(1));
                inner.step_by(by)
            }
            "skip" => {
                let inner = self.sequence(&m.receiver);
                let count = arg(self, 0).unwrap_or_default();
                inner.skip(count)
            }
            // Fewer items at the same places.
            "take" | "take_while" | "skip_while" | "filter" | "inspect" => {
                let inner = self.sequence(&m.receiver);
                for a in &m.args {
                    self.value(a);
                }
                inner
            }
            "rev" => {
                let inner = self.sequence(&m.receiver);
                inner.rev()
            }
            "enumerate" => Seq::Enumerate {
                inner: Box::new(self.sequence(&m.receiver)),
                first: Poly::default(),
                step: Poly::constant(1),
            },
            "zip" => {
                let a = self.sequence(&m.receiver);
                let b = match m.args.first() {
                    Some(other) => self.sequence(other),
                    None => Seq::Items { lane: true },
                };
                Seq::Zip(Box::new(a), Box::new(b))
            }
            "map" => match m.args.first() {
                Some(Expr::Closure(c)) if c.inputs.len() == 1 => Seq::Map(Box::new(self.sequence(&m.receiver)), c),
                _ => {
                    let inner = self.sequence(&m.receiver);
                    let lane = m.args.iter().any(|a| self.value(a).is_lane_dependent());
                    Seq::Items {
                        lane: inner.is_lane_dependent() || lane,
                    }
                }
            },
            "chunks" | "chunks_exact" | "windows" => {
                let slice = self.value(&m.receiver);
                let len = arg(self, 0).unwrap_or_else(|| Poly::constant(1));
                match slice {
                    Value::Pointer(slice) => {
                        let stride = if method == "windows" {
                            Poly::constant(1)
                        } else {
                            len.clone()
                        };
                        Seq::Slices { slice, len, stride }
                    }
                    other => Seq::Items {
                        lane: other.is_lane_dependent() || len.is_lane_dependent(),
                    },
                }
            }
            _ => {
                let value = self.value(&Expr::MethodCall(m.clone()));
                let at = self.span(m);
                self.of_value(value, at)
            }
        }
    }

    /// The item of iteration `n` (loads of copied elements recorded at `at`).
    pub(super) fn item(&mut self, seq: &Seq<'e>, n: &Poly, at: &Expr) -> Value {
        match seq {
            Seq::Range { start, step, .. } => Value::Int(start.add(&n.mul(step))),
            Seq::Elements {
                slice,
                first,
                step,
                copied,
                at: named,
            } => {
                let mut place = Place::at(slice);
                let index = first.add(&n.mul(step));
                place.offset = slice.offset.add(&index.scale(element_size(slice)));
                // The elements the loop walks, shown where the loop names them.
                place.index = Some(("..".to_string(), *named));
                if *copied {
                    self.load(&place, at)
                } else {
                    Value::Place(place)
                }
            }
            Seq::Slices { slice, stride, len } => {
                let mut sub = slice.clone();
                sub.offset = slice.offset.add(&n.mul(stride).scale(element_size(slice)));
                sub.len = Some(len.clone());
                Value::Pointer(sub)
            }
            Seq::Zip(a, b) => Value::Tuple(vec![self.item(a, n, at), self.item(b, n, at)]),
            Seq::Enumerate { inner, first, step } => {
                Value::Tuple(vec![Value::Int(first.add(&n.mul(step))), self.item(inner, n, at)])
            }
            Seq::Map(inner, closure) => {
                let item = self.item(inner, n, at);
                self.scopes.push(Default::default());
                self.bind_pattern(&closure.inputs[0], item);
                let mapped = self.value(&closure.body);
                self.scopes.pop();
                mapped
            }
            Seq::Items { lane } => {
                let id = self.fresh_id();
                Value::Int(Poly::opaque_because(id, self.text(at), *lane, why::ITEM))
            }
        }
    }
}

/// An iteration counter.
/// `successors(Some(start), |&x| Some(x + step))` (`core::iter::successors`, also `step + x`):
/// an arithmetic sequence, as its start and step.
fn arithmetic_successors(call: &syn::ExprCall) -> Option<(&Expr, &Expr)> {
    let Expr::Path(f) = &*call.func else { return None };
    if f.path.segments.last()?.ident != "successors" || call.args.len() != 2 {
        return None;
    }
    let some = |e: &'_ Expr| -> Option<Expr> {
        let Expr::Call(c) = e else { return None };
        let Expr::Path(p) = &*c.func else { return None };
        (p.path.is_ident("Some") && c.args.len() == 1).then(|| c.args[0].clone())
    };
    let start = match &call.args[0] {
        Expr::Call(c) if some(&call.args[0]).is_some() => &c.args[0],
        _ => return None,
    };
    let Expr::Closure(closure) = &call.args[1] else {
        return None;
    };
    let param = match closure.inputs.first()? {
        syn::Pat::Ident(i) => &i.ident,
        syn::Pat::Reference(r) => match &*r.pat {
            syn::Pat::Ident(i) => &i.ident,
            _ => return None,
        },
        _ => return None,
    };
    let Expr::Call(body) = &*closure.body else { return None };
    some(&closure.body)?;
    let Expr::Binary(sum) = &body.args[0] else { return None };
    if !matches!(sum.op, syn::BinOp::Add(_)) {
        return None;
    }
    let is_param = |e: &Expr| matches!(e, Expr::Path(p) if p.path.is_ident(param));
    match (is_param(&sum.left), is_param(&sum.right)) {
        (true, false) => Some((start, &sum.right)),
        (false, true) => Some((start, &sum.left)),
        _ => None,
    }
}

pub(super) fn counter(id: u32, name: String) -> Poly {
    Poly::atom(Atom::Iter(id, name))
}
