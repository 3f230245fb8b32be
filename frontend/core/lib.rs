// The `core` library the front end reads when the toolchain's own library source is not
// installed: rust-analyzer's test `minicore` (MIT OR Apache-2.0, from the `ra_ap_test_utils`
// crate, flags: see `frontend/src/core.rs`), with the parts marked `kernel-lint:` added, which
// kernels call: iterator adaptors, and methods of integers, floats, raw pointers and slices.
// Bodies that cannot be evaluated exactly are `panic!()` or `loop {}`: they give types only.

#![rustc_coherence_is_core]
#![feature(lang_items)]

pub mod marker {
    #[lang = "pointee_sized"]
    #[fundamental]
    #[rustc_specialization_trait]
    #[rustc_coinductive]
    pub trait PointeeSized {}

    #[lang = "meta_sized"]
    #[fundamental]
    #[rustc_specialization_trait]
    #[rustc_coinductive]
    pub trait MetaSized: PointeeSized {}

    #[lang = "sized"]
    #[fundamental]
    #[rustc_specialization_trait]
    #[rustc_coinductive]
    pub trait Sized: MetaSized {}

    pub unsafe auto trait Send {}

    impl<T: PointeeSized> !Send for *const T {}
    impl<T: PointeeSized> !Send for *mut T {}
    unsafe impl<T: Sync + PointeeSized> Send for &T {}
    unsafe impl<T: Send + PointeeSized> Send for &mut T {}

    pub unsafe auto trait Sync {}

    impl<T: PointeeSized> !Sync for *const T {}
    impl<T: PointeeSized> !Sync for *mut T {}

    #[lang = "unsize"]
    pub trait Unsize<T: PointeeSized>: PointeeSized {}

    #[lang = "unpin"]
    pub auto trait Unpin {}

    #[lang = "copy"]
    pub trait Copy: Clone {}
    #[rustc_builtin_macro]
    pub macro Copy($item:item) {}

    mod copy_impls {
        use super::{Copy, PointeeSized};

        macro_rules! impl_copy {
            ($($t:ty)*) => {
                $(
                    impl Copy for $t {}
                )*
            }
        }

        impl_copy! {
            usize u8 u16 u32 u64 u128
            isize i8 i16 i32 i64 i128
            f16 f32 f64 f128
            bool char
        }

        impl<T: PointeeSized> Copy for *const T {}
        impl<T: PointeeSized> Copy for *mut T {}
        impl<T: PointeeSized> Copy for &T {}
        impl Copy for ! {}
    }

    #[lang = "tuple_trait"]
    pub trait Tuple {}

    #[lang = "phantom_data"]
    pub struct PhantomData<T: PointeeSized>;

    impl<T: PointeeSized> Clone for PhantomData<T> {
        fn clone(&self) -> Self {
            Self
        }
    }

    impl<T: PointeeSized> Copy for PhantomData<T> {}


    #[lang = "discriminant_kind"]
    pub trait DiscriminantKind {
        #[lang = "discriminant_type"]
        type Discriminant;
    }


}

pub mod default {
    pub trait Default: Sized {
        fn default() -> Self;
    }
    #[rustc_builtin_macro(Default, attributes(default))]
    pub macro Default($item:item) {}

    macro_rules! impl_default {
        ($v:literal; $($t:ty)*) => {
            $(
                impl Default for $t {
                    fn default() -> Self {
                        $v
                    }
                }
            )*
        }
    }

    impl_default! {
        0; usize u8 u16 u32 u64 u128 isize i8 i16 i32 i64 i128
    }
    impl_default! {
        0.0; f16 f32 f64 f128
    }
}

pub mod hash {
    use crate::marker::PointeeSized;

    pub trait Hasher {}

    pub trait Hash: PointeeSized {
        fn hash<H: Hasher>(&self, state: &mut H);
    }

    pub(crate) mod derive {
        #[rustc_builtin_macro]
        pub macro Hash($item:item) {}
    }
    pub use derive::Hash;
}

pub mod cell {
    use crate::marker::PointeeSized;
    use crate::mem;

    #[lang = "unsafe_cell"]
    pub struct UnsafeCell<T: PointeeSized> {
        value: T,
    }

    impl<T> UnsafeCell<T> {
        pub const fn new(value: T) -> UnsafeCell<T> {
            UnsafeCell { value }
        }

        pub const fn get(&self) -> *mut T {
            self as *const UnsafeCell<T> as *const T as *mut T
        }
    }

    pub struct Cell<T: PointeeSized> {
        value: UnsafeCell<T>,
    }

    impl<T> Cell<T> {
        pub const fn new(value: T) -> Cell<T> {
            Cell { value: UnsafeCell::new(value) }
        }

        pub fn set(&self, val: T) {
            let old = self.replace(val);
            mem::drop(old);
        }

        pub fn replace(&self, val: T) -> T {
            mem::replace(unsafe { &mut *self.value.get() }, val)
        }
    }

    impl<T: Copy> Cell<T> {
        pub fn get(&self) -> T {
            unsafe { *self.value.get() }
        }
    }
}

pub mod clone {
    #[lang = "clone"]
    pub trait Clone: Sized {
        fn clone(&self) -> Self;
    }

    impl<T> Clone for &T {
        fn clone(&self) -> Self {
            *self
        }
    }

    macro_rules! impl_clone {
        ($($t:ty)*) => {
            $(
                impl const Clone for $t {
                    fn clone(&self) -> Self {
                        *self
                    }
                }
            )*
        }
    }

    impl_clone! {
        usize u8 u16 u32 u64 u128
        isize i8 i16 i32 i64 i128
        f16 f32 f64 f128
        bool char
    }

    impl Clone for ! {
        fn clone(&self) {
            *self
        }
    }

    impl<T: Clone> Clone for [T; 0] {
        fn clone(&self) -> Self {
            []
        }
    }

    impl<T: Clone> Clone for [T; 1] {
        fn clone(&self) -> Self {
            [self[0].clone()]
        }
    }

    #[rustc_builtin_macro]
    pub macro Clone($item:item) {}
}

pub mod convert {
    pub trait From<T>: Sized {
        fn from(_: T) -> Self;
    }
    pub trait Into<T>: Sized {
        fn into(self) -> T;
    }

    impl<T, U> Into<U> for T
    where
        U: From<T>,
    {
        fn into(self) -> U {
            U::from(self)
        }
    }

    impl<T> From<T> for T {
        fn from(t: T) -> T {
            t
        }
    }

    pub trait TryFrom<T>: Sized {
        type Error;
        fn try_from(value: T) -> Result<Self, Self::Error>;
    }
    pub trait TryInto<T>: Sized {
        type Error;
        fn try_into(self) -> Result<T, Self::Error>;
    }

    impl<T, U> TryInto<U> for T
    where
        U: TryFrom<T>,
    {
        type Error = U::Error;
        fn try_into(self) -> Result<U, U::Error> {
            U::try_from(self)
        }
    }

    pub trait AsRef<T: crate::marker::PointeeSized>: crate::marker::PointeeSized {
        fn as_ref(&self) -> &T;
    }
    pub trait AsMut<T: crate::marker::PointeeSized>: crate::marker::PointeeSized {
        fn as_mut(&mut self) -> &mut T;
    }
    pub enum Infallible {}
}

pub mod borrow {
    pub trait Borrow<Borrowed: ?Sized> {
        fn borrow(&self) -> &Borrowed;
    }

    pub trait BorrowMut<Borrowed: ?Sized>: Borrow<Borrowed> {
        fn borrow_mut(&mut self) -> &mut Borrowed;
    }
}

pub mod mem {
    use crate::marker::PointeeSized;

    #[lang = "manually_drop"]
    #[repr(transparent)]
    pub struct ManuallyDrop<T: PointeeSized> {
        value: T,
    }

    impl<T> ManuallyDrop<T> {
        pub const fn new(value: T) -> ManuallyDrop<T> {
            ManuallyDrop { value }
        }
    }

    impl<T: PointeeSized> crate::ops::Deref for ManuallyDrop<T> {
        type Target = T;
        fn deref(&self) -> &T {
            &self.value
        }
    }


    pub fn drop<T>(_x: T) {}
    pub const fn replace<T>(dest: &mut T, src: T) -> T {
        unsafe {
            let result = crate::ptr::read(dest);
            crate::ptr::write(dest, src);
            result
        }
    }

    #[rustc_intrinsic]
    pub fn transmute<Src, Dst>(src: Src) -> Dst;

    #[rustc_intrinsic]
    pub fn size_of<T>() -> usize;

    use crate::marker::DiscriminantKind;
    pub struct Discriminant<T>(<T as DiscriminantKind>::Discriminant);

    pub macro offset_of($Container:ty, $($fields:expr)+ $(,)?) {
        // The `{}` is for better error messages
        {builtin # offset_of($Container, $($fields)+)}
    }
}

pub mod ptr {
    // kernel-lint: the copies and volatile accesses kernels call.
    pub unsafe fn read_volatile<T>(src: *const T) -> T { panic!() }
    pub unsafe fn write_volatile<T>(dst: *mut T, src: T) { panic!() }
    pub unsafe fn copy<T>(src: *const T, dst: *mut T, count: usize) { panic!() }
    pub unsafe fn copy_nonoverlapping<T>(src: *const T, dst: *mut T, count: usize) { panic!() }

    #[lang = "drop_in_place"]
    pub unsafe fn drop_in_place<T: crate::marker::PointeeSized>(to_drop: *mut T) {
        unsafe { drop_in_place(to_drop) }
    }
    pub const unsafe fn read<T>(src: *const T) -> T {
        unsafe { *src }
    }
    pub const unsafe fn write<T>(dst: *mut T, src: T) {
        unsafe {
            *dst = src;
        }
    }

    #[rustc_nonnull_optimization_guaranteed]
    #[repr(transparent)]
    pub struct NonNull<T: crate::marker::PointeeSized> {
        pointer: crate::pattern_type!(*const T is !null),
    }
    impl<T: crate::marker::PointeeSized, U: crate::marker::PointeeSized>
        crate::ops::CoerceUnsized<NonNull<U>> for NonNull<T>
    where
        T: crate::marker::Unsize<U>,
    {
    }

    #[rustc_macro_transparency = "semiopaque"]
    pub macro addr_of($place:expr) {
        &raw const $place
    }
    #[rustc_macro_transparency = "semiopaque"]
    pub macro addr_of_mut($place:expr) {
        &raw mut $place
    }
}

pub mod ops {
    mod unsize {
        use crate::marker::{PointeeSized, Unsize};

        #[lang = "coerce_unsized"]
        pub trait CoerceUnsized<T> {}

        impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<&'a mut U> for &'a mut T {}
        impl<'a, 'b: 'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<&'a U> for &'b mut T {}
        impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*mut U> for &'a mut T {}
        impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*const U> for &'a mut T {}

        impl<'a, 'b: 'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<&'a U> for &'b T {}
        impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*const U> for &'a T {}

        impl<T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*mut U> for *mut T {}
        impl<T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*const U> for *mut T {}
        impl<T: PointeeSized + Unsize<U>, U: PointeeSized> CoerceUnsized<*const U> for *const T {}
    }
    pub use self::unsize::CoerceUnsized;

    mod deref {
        use crate::marker::PointeeSized;

        #[lang = "deref"]
        pub trait Deref: PointeeSized {
            #[lang = "deref_target"]
            type Target: ?Sized;
            fn deref(&self) -> &Self::Target;
        }

        impl<T: PointeeSized> Deref for &T {
            type Target = T;
            fn deref(&self) -> &T {
                *self
            }
        }
        impl<T: PointeeSized> Deref for &mut T {
            type Target = T;
            fn deref(&self) -> &T {
                *self
            }
        }
        #[lang = "deref_mut"]
        pub trait DerefMut: Deref + PointeeSized {
            fn deref_mut(&mut self) -> &mut Self::Target;
        }


        #[lang = "receiver"]
        pub trait Receiver: PointeeSized {
            #[lang = "receiver_target"]
            type Target: ?Sized;
        }

        impl<P: PointeeSized, T: PointeeSized> Receiver for P
        where
            P: Deref<Target = T>,
        {
            type Target = T;
        }
    }
    pub use self::deref::{
        Deref,
        DerefMut,  // :deref_mut
        Receiver,  // :receiver
    };

    #[lang = "drop"]
    pub trait Drop {
        fn drop(&mut self);

        fn pin_drop(self: crate::pin::Pin<&mut Self>) {}
    }

    mod index {
        #[lang = "index"]
        pub trait Index<Idx: ?Sized> {
            type Output: ?Sized;
            fn index(&self, index: Idx) -> &Self::Output;
        }
        #[lang = "index_mut"]
        pub trait IndexMut<Idx: ?Sized>: Index<Idx> {
            fn index_mut(&mut self, index: Idx) -> &mut Self::Output;
        }

        impl<T, I> Index<I> for [T]
        where
            I: SliceIndex<[T]>,
        {
            type Output = I::Output;
            fn index(&self, _index: I) -> &I::Output {
                loop {}
            }
        }
        impl<T, I> IndexMut<I> for [T]
        where
            I: SliceIndex<[T]>,
        {
            fn index_mut(&mut self, _index: I) -> &mut I::Output {
                loop {}
            }
        }

        impl<T, I, const N: usize> Index<I> for [T; N]
        where
            I: SliceIndex<[T]>,
        {
            type Output = I::Output;
            fn index(&self, _index: I) -> &I::Output {
                loop {}
            }
        }
        impl<T, I, const N: usize> IndexMut<I> for [T; N]
        where
            I: SliceIndex<[T]>,
        {
            fn index_mut(&mut self, _index: I) -> &mut I::Output {
                loop {}
            }
        }

        pub unsafe trait SliceIndex<T: ?Sized> {
            type Output: ?Sized;
        }
        unsafe impl<T> SliceIndex<[T]> for usize {
            type Output = T;
        }

        macro_rules! impl_index_range {
            ( $($range:ty,)* ) => {
                $(
                    unsafe impl<T> SliceIndex<[T]> for $range {
                        type Output = [T];
                    }
                )*
            }
        }

        impl_index_range!(
            crate::ops::RangeFull,
            crate::ops::Range<usize>,
            crate::ops::RangeFrom<usize>,
            crate::ops::RangeTo<usize>,
            crate::ops::RangeInclusive<usize>,
            crate::ops::RangeToInclusive<usize>,
        );


    }
    pub use self::index::{Index, IndexMut};

    mod range {
        #[lang = "RangeFull"]
        pub struct RangeFull;

        #[lang = "Range"]
        pub struct Range<Idx> {
            pub start: Idx,
            pub end: Idx,
        }

        #[lang = "RangeFrom"]
        pub struct RangeFrom<Idx> {
            pub start: Idx,
        }

        #[lang = "RangeTo"]
        pub struct RangeTo<Idx> {
            pub end: Idx,
        }

        #[lang = "RangeInclusive"]
        pub struct RangeInclusive<Idx> {
            pub(crate) start: Idx,
            pub(crate) end: Idx,
            pub(crate) exhausted: bool,
        }

        impl<Idx> RangeInclusive<Idx> {
            #[lang = "range_inclusive_new"]
            pub const fn new(start: Idx, end: Idx) -> Self {
                Self { start, end, exhausted: false }
            }
        }

        #[lang = "RangeToInclusive"]
        pub struct RangeToInclusive<Idx> {
            pub end: Idx,
        }

        pub trait Step {}
        macro_rules! impl_step {
            ( $( $ty:ty ),* $(,)? ) => {
                $(
                    impl Step for $ty {}
                )*
            };
        }
        impl_step!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

        macro_rules! impl_iterator {
            ( $( $range:ident ),* $(,)? ) => {
                $(
                    impl<Idx: Step> Iterator for $range<Idx> {
                        type Item = Idx;
                        fn next(&mut self) -> Option<Self::Item> { loop {} }
                    }
                )*
            };
        }
        impl_iterator!(Range, RangeFrom, RangeTo, RangeInclusive, RangeToInclusive);
    }
    pub use self::range::{Range, RangeFrom, RangeFull, RangeTo};
    pub use self::range::{RangeInclusive, RangeToInclusive};

    mod function {
        use crate::marker::Tuple;

        #[lang = "fn"]
        #[fundamental]
        #[rustc_paren_sugar]
        pub trait Fn<Args: Tuple>: FnMut<Args> {
            extern "rust-call" fn call(&self, args: Args) -> Self::Output;
        }

        #[lang = "fn_mut"]
        #[fundamental]
        #[rustc_paren_sugar]
        pub trait FnMut<Args: Tuple>: FnOnce<Args> {
            extern "rust-call" fn call_mut(&mut self, args: Args) -> Self::Output;
        }

        #[lang = "fn_once"]
        #[fundamental]
        #[rustc_paren_sugar]
        pub trait FnOnce<Args: Tuple> {
            #[lang = "fn_once_output"]
            type Output;
            extern "rust-call" fn call_once(self, args: Args) -> Self::Output;
        }

        mod impls {
            use crate::marker::Tuple;

            #[stable(feature = "rust1", since = "1.0.0")]
            #[rustc_const_unstable(feature = "const_fn_trait_ref_impls", issue = "101803")]
            impl<A: Tuple, F: ?Sized> const Fn<A> for &F
            where
                F: [const] Fn<A>,
            {
                extern "rust-call" fn call(&self, args: A) -> F::Output {
                    (**self).call(args)
                }
            }

            #[stable(feature = "rust1", since = "1.0.0")]
            #[rustc_const_unstable(feature = "const_fn_trait_ref_impls", issue = "101803")]
            impl<A: Tuple, F: ?Sized> const FnMut<A> for &F
            where
                F: [const] Fn<A>,
            {
                extern "rust-call" fn call_mut(&mut self, args: A) -> F::Output {
                    (**self).call(args)
                }
            }

            #[stable(feature = "rust1", since = "1.0.0")]
            #[rustc_const_unstable(feature = "const_fn_trait_ref_impls", issue = "101803")]
            impl<A: Tuple, F: ?Sized> const FnOnce<A> for &F
            where
                F: [const] Fn<A>,
            {
                type Output = F::Output;

                extern "rust-call" fn call_once(self, args: A) -> F::Output {
                    (*self).call(args)
                }
            }

            #[stable(feature = "rust1", since = "1.0.0")]
            #[rustc_const_unstable(feature = "const_fn_trait_ref_impls", issue = "101803")]
            impl<A: Tuple, F: ?Sized> const FnMut<A> for &mut F
            where
                F: [const] FnMut<A>,
            {
                extern "rust-call" fn call_mut(&mut self, args: A) -> F::Output {
                    (*self).call_mut(args)
                }
            }

            #[stable(feature = "rust1", since = "1.0.0")]
            #[rustc_const_unstable(feature = "const_fn_trait_ref_impls", issue = "101803")]
            impl<A: Tuple, F: ?Sized> const FnOnce<A> for &mut F
            where
                F: [const] FnMut<A>,
            {
                type Output = F::Output;
                extern "rust-call" fn call_once(self, args: A) -> F::Output {
                    (*self).call_mut(args)
                }
            }
        }
    }
    pub use self::function::{Fn, FnMut, FnOnce};


    mod try_ {
        use crate::convert::Infallible;

        pub enum ControlFlow<B, C = ()> {
            #[lang = "Continue"]
            Continue(C),
            #[lang = "Break"]
            Break(B),
        }
        pub trait FromResidual<R = <Self as Try>::Residual> {
            #[lang = "from_residual"]
            fn from_residual(residual: R) -> Self;
        }
        pub const trait Residual<O>: Sized {
            type TryType: [const] Try<Output = O, Residual = Self>;
        }
        #[lang = "Try"]
        pub trait Try: FromResidual<Self::Residual> {
            type Output;
            type Residual;
            #[lang = "from_output"]
            fn from_output(output: Self::Output) -> Self;
            #[lang = "branch"]
            fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
        }
        #[lang = "into_try_type"]
        pub const fn residual_into_try_type<R: [const] Residual<O>, O>(
            r: R,
        ) -> <R as Residual<O>>::TryType {
            FromResidual::from_residual(r)
        }

        impl<B, C> Try for ControlFlow<B, C> {
            type Output = C;
            type Residual = ControlFlow<B, Infallible>;
            fn from_output(output: Self::Output) -> Self {
                ControlFlow::Continue(output)
            }
            fn branch(self) -> ControlFlow<Self::Residual, Self::Output> {
                match self {
                    ControlFlow::Continue(x) => ControlFlow::Continue(x),
                    ControlFlow::Break(x) => ControlFlow::Break(ControlFlow::Break(x)),
                }
            }
        }

        impl<B, C> FromResidual for ControlFlow<B, C> {
            fn from_residual(residual: ControlFlow<B, Infallible>) -> Self {
                match residual {
                    ControlFlow::Break(b) => ControlFlow::Break(b),
                    ControlFlow::Continue(_) => loop {},
                }
            }
        }

        impl<B, C> Residual<C> for ControlFlow<B, Infallible> {
            type TryType = ControlFlow<B, C>;
        }
        impl<T> Try for Option<T> {
            type Output = T;
            type Residual = Option<Infallible>;
            fn from_output(output: Self::Output) -> Self {
                Some(output)
            }
            fn branch(self) -> ControlFlow<Self::Residual, Self::Output> {
                match self {
                    Some(x) => ControlFlow::Continue(x),
                    None => ControlFlow::Break(None),
                }
            }
        }

        impl<T> FromResidual for Option<T> {
            fn from_residual(x: Option<Infallible>) -> Self {
                match x {
                    None => None,
                    Some(_) => loop {},
                }
            }
        }

        impl<T> const Residual<T> for Option<Infallible> {
            type TryType = Option<T>;
        }
        use crate::convert::From;

        impl<T, E> Try for Result<T, E> {
            type Output = T;
            type Residual = Result<Infallible, E>;

            fn from_output(output: Self::Output) -> Self {
                Ok(output)
            }

            fn branch(self) -> ControlFlow<Self::Residual, Self::Output> {
                match self {
                    Ok(v) => ControlFlow::Continue(v),
                    Err(e) => ControlFlow::Break(Err(e)),
                }
            }
        }

        impl<T, E, F: From<E>> FromResidual<Result<Infallible, E>> for Result<T, F> {
            fn from_residual(residual: Result<Infallible, E>) -> Self {
                match residual {
                    Err(e) => Err(F::from(e)),
                    Ok(_) => loop {},
                }
            }
        }

        impl<T, E> const Residual<T> for Result<Infallible, E> {
            type TryType = Result<T, E>;
        }
    }
    pub use self::try_::{ControlFlow, FromResidual, Residual, Try};

    #[lang = "add"]
    pub trait Add<Rhs = Self> {
        type Output;
        fn add(self, rhs: Rhs) -> Self::Output;
    }

    #[lang = "add_assign"]
    pub const trait AddAssign<Rhs = Self> {
        fn add_assign(&mut self, rhs: Rhs);
    }

    macro_rules! add_impl {
        ($($t:ty)*) => ($(
            impl const Add for $t {
                type Output = $t;
                fn add(self, other: $t) -> $t { self + other }
            }
            impl AddAssign for $t {
                fn add_assign(&mut self, other: $t) { *self += other; }
            }
        )*)
    }

    add_impl! { usize u8 u16 u32 u64 u128 isize i8 i16 i32 i64 i128 f16 f32 f64 f128 }

    #[lang = "not"]
    pub const trait Not {
        type Output;

        #[must_use]
        fn not(self) -> Self::Output;
    }

    #[lang = "neg"]
    pub const trait Neg {
        type Output;

        #[must_use = "this returns the result of the operation, without modifying the original"]
        fn neg(self) -> Self::Output;
    }


    mod dispatch_from_dyn {
        use crate::marker::{PointeeSized, Unsize};

        #[lang = "dispatch_from_dyn"]
        pub trait DispatchFromDyn<T> {}

        impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<&'a U> for &'a T {}

        impl<'a, T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<&'a mut U> for &'a mut T {}

        impl<T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<*const U> for *const T {}

        impl<T: PointeeSized + Unsize<U>, U: PointeeSized> DispatchFromDyn<*mut U> for *mut T {}
    }
    pub use self::dispatch_from_dyn::DispatchFromDyn;
}


pub mod cmp {
    use crate::marker::PointeeSized;

    #[lang = "eq"]
    pub trait PartialEq<Rhs: PointeeSized = Self>: PointeeSized {
        fn eq(&self, other: &Rhs) -> bool;
        fn ne(&self, other: &Rhs) -> bool {
            !self.eq(other)
        }
    }

    pub trait Eq: PartialEq<Self> + PointeeSized {}

    impl PartialEq for () {
        fn eq(&self, other: &()) -> bool {
            true
        }
    }

    #[rustc_builtin_macro]
    pub macro PartialEq($item:item) {}
    #[rustc_builtin_macro]
    pub macro Eq($item:item) {}

    #[lang = "partial_ord"]
    pub trait PartialOrd<Rhs: PointeeSized = Self>: PartialEq<Rhs> + PointeeSized {
        fn partial_cmp(&self, other: &Rhs) -> Option<Ordering>;
    }

    pub trait Ord: Eq + PartialOrd<Self> + PointeeSized {
        fn cmp(&self, other: &Self) -> Ordering;
    }

    pub enum Ordering {
        Less = -1,
        Equal = 0,
        Greater = 1,
    }

    #[rustc_builtin_macro]
    pub macro PartialOrd($item:item) {}
    #[rustc_builtin_macro]
    pub macro Ord($item:item) {}

}

pub mod fmt {
    use crate::marker::PointeeSized;

    pub struct Error;
    pub type Result = crate::result::Result<(), Error>;
    pub struct Formatter<'a>(&'a ());
    pub struct DebugTuple;
    pub struct DebugStruct;
    impl Formatter<'_> {
        pub fn debug_tuple(&mut self, _name: &str) -> DebugTuple {
            DebugTuple
        }

        pub fn debug_struct(&mut self, _name: &str) -> DebugStruct {
            DebugStruct
        }
    }

    impl DebugTuple {
        pub fn field(&mut self, _value: &dyn Debug) -> &mut Self {
            self
        }

        pub fn finish(&mut self) -> Result {
            Ok(())
        }
    }

    impl DebugStruct {
        pub fn field(&mut self, _name: &str, _value: &dyn Debug) -> &mut Self {
            self
        }

        pub fn finish(&mut self) -> Result {
            Ok(())
        }
    }

    pub trait Debug: PointeeSized {
        fn fmt(&self, f: &mut Formatter<'_>) -> Result;
    }
    pub trait Display: PointeeSized {
        fn fmt(&self, f: &mut Formatter<'_>) -> Result;
    }

    impl<T: ?Sized + Debug> Debug for &T {
        fn fmt(&self, f: &mut Formatter<'_>) -> Result {
            T::fmt(&**self, f)
        }
    }
    impl<T: ?Sized + Display> Display for &T {
        fn fmt(&self, f: &mut Formatter<'_>) -> Result {
            T::fmt(&**self, f)
        }
    }

    macro_rules! impl_fmt_traits {
        ( $($ty:ty),* $(,)? ) => {
            $(
                impl Debug for $ty {
                    fn fmt(&self, f: &mut Formatter<'_>) -> Result { loop {} }
                }
                impl Display for $ty {
                    fn fmt(&self, f: &mut Formatter<'_>) -> Result { loop {} }
                }
            )*
        }
    }

    impl_fmt_traits!(str);

    impl_fmt_traits!(
        i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char,
    );

    mod rt {
        use super::*;

        extern "C" {
            type Opaque;
        }

        #[derive(Copy, Clone)]
        #[lang = "format_argument"]
        pub struct Argument<'a> {
            value: &'a Opaque,
            formatter: fn(&Opaque, &mut Formatter<'_>) -> Result,
        }

        impl<'a> Argument<'a> {
            pub fn new<'b, T>(x: &'b T, f: fn(&T, &mut Formatter<'_>) -> Result) -> Argument<'b> {
                use crate::mem::transmute;
                unsafe { Argument { formatter: transmute(f), value: transmute(x) } }
            }

            pub fn new_display<'b, T: crate::fmt::Display>(x: &'b T) -> Argument<'_> {
                Self::new(x, crate::fmt::Display::fmt)
            }
        }

        #[lang = "format_alignment"]
        pub enum Alignment {
            Left,
            Right,
            Center,
            Unknown,
        }
    }

    #[lang = "format_arguments"]
    #[derive(Copy, Clone)]
    pub struct Arguments<'a> {
        // This is a non-faithful representation of `core::fmt::Arguments`, because the real one
        // is too complex for minicore.
        message: Option<&'a str>,
    }

    impl<'a> Arguments<'a> {
        pub unsafe fn new<const N: usize, const M: usize>(
            _template: &'a [u8; N],
            _args: &'a [rt::Argument<'a>; M],
        ) -> Arguments<'a> {
            Arguments { message: None }
        }

        pub fn from_str_nonconst(s: &'static str) -> Arguments<'a> {
            Arguments { message: Some(s) }
        }

        pub const fn from_str(s: &'static str) -> Arguments<'a> {
            Arguments { message: Some(s) }
        }

        pub fn as_str(&self) -> Option<&'static str> {
            match self.message {
                Some(s) => unsafe { Some(&*(s as *const str)) },
                None => None,
            }
        }
    }

    pub(crate) mod derive {
        #[rustc_builtin_macro]
        pub macro Debug($item:item) {}
    }
    pub use derive::Debug;

    macro_rules! impl_debug {
        ($($t:ty)*) => {
            $(
                impl const Debug for $t {
                    fn fmt(&self, _f: &mut Formatter<'_>) -> Result {
                        Ok(())
                    }
                }
            )*
        }
    }

    impl_debug! {
        usize u8 u16 u32 u64 u128
        isize i8 i16 i32 i64 i128
        f16 f32 f64 f128
        bool char
    }

    impl<T: Debug> Debug for [T] {
        fn fmt(&self, _f: &mut Formatter<'_>) -> Result {
            Ok(())
        }
    }

    impl<T: Debug + PointeeSized> Debug for &T {
        fn fmt(&self, f: &mut Formatter<'_>) -> Result {
            (&**self).fmt(f)
        }
    }
}

pub mod slice {
    #[lang = "slice"]
    impl<T> [T] {
        #[lang = "slice_len_fn"]
        pub fn len(&self) -> usize {
            loop {}
        }
    }

    impl<T> const Default for &[T] {
        fn default() -> Self {
            &[]
        }
    }
    impl<T> const Default for &mut [T] {
        fn default() -> Self {
            &mut []
        }
    }
}

pub mod option {
    #[lang = "Option"]
    pub enum Option<T> {
        #[lang = "None"]
        None,
        #[lang = "Some"]
        Some(T),
    }

    impl<T: Copy> Copy for Option<T> {}

    impl<T> Option<T> {
        pub const fn unwrap(self) -> T {
            match self {
                Some(val) => val,
                None => panic!("called `Option::unwrap()` on a `None` value"),
            }
        }

        pub const fn as_ref(&self) -> Option<&T> {
            match self {
                Some(x) => Some(x),
                None => None,
            }
        }

        pub fn and<U>(self, _optb: Option<U>) -> Option<U> {
            loop {}
        }
        pub fn unwrap_or(self, default: T) -> T {
            match self {
                Some(val) => val,
                None => default,
            }
        }
        pub const fn ok_or<E>(self, err: E) -> Result<T, E> {
            match self {
                Some(v) => Ok(v),
                None => Err(err),
            }
        }
        pub fn and_then<U, F>(self, _f: F) -> Option<U>
        where
            F: FnOnce(T) -> Option<U>,
        {
            loop {}
        }
        pub fn unwrap_or_else<F>(self, _f: F) -> T
        where
            F: FnOnce() -> T,
        {
            loop {}
        }
        pub fn map_or<U, F>(self, _default: U, _f: F) -> U
        where
            F: FnOnce(T) -> U,
        {
            loop {}
        }
        pub fn map_or_else<U, D, F>(self, _default: D, _f: F) -> U
        where
            D: FnOnce() -> U,
            F: FnOnce(T) -> U,
        {
            loop {}
        }
    }
}

pub mod result {
    pub enum Result<T, E> {
        #[lang = "Ok"]
        Ok(T),
        #[lang = "Err"]
        Err(E),
    }
    impl<T, E> Result<T, E> {
        pub const fn or<F>(self, res: Result<T, F>) -> Result<T, F> {
            match self {
                Ok(v) => Ok(v),
                Err(_) => res,
            }
        }

        pub const fn unwrap_or(self, default: T) -> T {
            match self {
                Ok(t) => t,
                Err(_) => default,
            }
        }

        pub const fn or_else<F, O>(self, op: O) -> Result<T, F>
        where
            O: FnOnce(E) -> Result<T, F>,
        {
            match self {
                Ok(t) => Ok(t),
                Err(e) => op(e),
            }
        }

        pub const fn unwrap_or_else<F>(self, op: F) -> T
        where
            F: FnOnce(E) -> T,
        {
            match self {
                Ok(t) => t,
                Err(e) => op(e),
            }
        }
    }
}

pub mod pin {
    #[lang = "pin"]
    #[fundamental]
    pub struct Pin<P> {
        pointer: P,
    }
    impl<P> Pin<P> {
        pub fn new(pointer: P) -> Pin<P> {
            Pin { pointer }
        }
    }
    impl<P: crate::ops::Deref> crate::ops::Deref for Pin<P> {
        type Target = P::Target;
        fn deref(&self) -> &P::Target {
            loop {}
        }
    }
    impl<Ptr, U> crate::ops::DispatchFromDyn<Pin<U>> for Pin<Ptr> where
        Ptr: crate::ops::DispatchFromDyn<U>
    {
    }
    impl<Ptr, U> crate::ops::CoerceUnsized<Pin<U>> for Pin<Ptr> where Ptr: crate::ops::CoerceUnsized<U> {}
}



pub mod iter {
    mod adapters {
        pub struct Take<I> {
            iter: I,
            n: usize,
        }
        impl<I> Iterator for Take<I>
        where
            I: Iterator,
        {
            type Item = <I as Iterator>::Item;

            fn next(&mut self) -> Option<<I as Iterator>::Item> {
                loop {}
            }
        }

        pub struct Filter<I, P> {
            iter: I,
            predicate: P,
        }
        impl<I: Iterator, P> Iterator for Filter<I, P>
        where
            P: FnMut(&I::Item) -> bool,
        {
            type Item = I::Item;

            fn next(&mut self) -> Option<I::Item> {
                loop {}
            }
        }

        pub struct Map<I, F> {
            iter: I,
            f: F,
        }
        impl<B, I: Iterator, F> Iterator for Map<I, F>
        where
            F: FnMut(I::Item) -> B,
        {
            type Item = B;

            #[inline]
            fn next(&mut self) -> B {
                loop {}
            }
        }

        pub struct FilterMap<I, F> {
            iter: I,
            f: F,
        }
        impl<B, I: Iterator, F> Iterator for FilterMap<I, F>
        where
            F: FnMut(I::Item) -> Option<B>,
        {
            type Item = B;

            #[inline]
            fn next(&mut self) -> Option<B> {
                loop {}
            }
        }
        // kernel-lint: the adaptors kernels chain over ranges and slices.
        pub struct StepBy<I> {
            iter: I,
            step: usize,
        }
        impl<I: Iterator> Iterator for StepBy<I> {
            type Item = I::Item;
            fn next(&mut self) -> Option<I::Item> {
                loop {}
            }
        }
        pub struct Skip<I> {
            iter: I,
            n: usize,
        }
        impl<I: Iterator> Iterator for Skip<I> {
            type Item = I::Item;
            fn next(&mut self) -> Option<I::Item> {
                loop {}
            }
        }
        pub struct Rev<I> {
            iter: I,
        }
        impl<I: Iterator> Iterator for Rev<I> {
            type Item = I::Item;
            fn next(&mut self) -> Option<I::Item> {
                loop {}
            }
        }
        pub struct Enumerate<I> {
            iter: I,
            count: usize,
        }
        impl<I: Iterator> Iterator for Enumerate<I> {
            type Item = (usize, I::Item);
            fn next(&mut self) -> Option<(usize, I::Item)> {
                loop {}
            }
        }
        pub struct Zip<A, B> {
            a: A,
            b: B,
        }
        impl<A: Iterator, B: Iterator> Iterator for Zip<A, B> {
            type Item = (A::Item, B::Item);
            fn next(&mut self) -> Option<(A::Item, B::Item)> {
                loop {}
            }
        }
        pub struct Chain<A, B> {
            a: A,
            b: B,
        }
        impl<A: Iterator, B: Iterator<Item = A::Item>> Iterator for Chain<A, B> {
            type Item = A::Item;
            fn next(&mut self) -> Option<A::Item> {
                loop {}
            }
        }
    }
    pub use self::adapters::{Chain, Enumerate, Filter, FilterMap, Rev, Skip, StepBy, Take, Zip};

    mod sources {
        mod repeat {
            pub fn repeat<T>(_elt: T) -> Repeat<T> {
                loop {}
            }

            pub struct Repeat<A> {
                element: A,
            }

            impl<A> Iterator for Repeat<A> {
                type Item = A;

                fn next(&mut self) -> Option<A> {
                    loop {}
                }
            }
        }
        pub use self::repeat::{Repeat, repeat};
    }
    pub use self::sources::{Repeat, repeat};

    mod traits {
        mod iterator {
            use crate::marker::PointeeSized;

            #[doc(notable_trait)]
            #[lang = "iterator"]
            pub trait Iterator {
                type Item;
                #[lang = "next"]
                fn next(&mut self) -> Option<Self::Item>;
                fn nth(&mut self, n: usize) -> Option<Self::Item> {
                    loop {}
                }
                fn by_ref(&mut self) -> &mut Self
                where
                    Self: Sized,
                {
                    self
                }
                fn take(self, n: usize) -> crate::iter::Take<Self>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn filter<P>(self, predicate: P) -> crate::iter::Filter<Self, P>
                where
                    Self: Sized,
                    P: FnMut(&Self::Item) -> bool,
                {
                    loop {}
                }
                fn map<B, F>(self, _f: F) -> crate::iter::Map<Self, F>
                where
                    Self: Sized,
                    F: FnMut(Self::Item) -> B,
                {
                    loop {}
                }
                fn filter_map<B, F>(self, _f: F) -> crate::iter::FilterMap<Self, F>
                where
                    Self: Sized,
                    F: FnMut(Self::Item) -> Option<B>,
                {
                    loop {}
                }
                fn collect<B: FromIterator<Self::Item>>(self) -> B
                where
                    Self: Sized,
                {
                    loop {}
                }
                // kernel-lint: the adaptors kernels chain over ranges and slices.
                fn step_by(self, step: usize) -> crate::iter::StepBy<Self>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn skip(self, n: usize) -> crate::iter::Skip<Self>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn rev(self) -> crate::iter::Rev<Self>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn enumerate(self) -> crate::iter::Enumerate<Self>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn zip<U: IntoIterator>(self, other: U) -> crate::iter::Zip<Self, U::IntoIter>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn chain<U: IntoIterator<Item = Self::Item>>(self, other: U) -> crate::iter::Chain<Self, U::IntoIter>
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn count(self) -> usize
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn for_each<F: FnMut(Self::Item)>(self, f: F)
                where
                    Self: Sized,
                {
                    loop {}
                }
                fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, f: F) -> B
                where
                    Self: Sized,
                {
                    loop {}
                }
            }
            impl<I: Iterator + PointeeSized> Iterator for &mut I {
                type Item = I::Item;
                fn next(&mut self) -> Option<I::Item> {
                    (**self).next()
                }
            }
        }
        pub use self::iterator::Iterator;

        mod collect {
            pub trait IntoIterator {
                type Item;
                type IntoIter: Iterator<Item = Self::Item>;
                #[lang = "into_iter"]
                fn into_iter(self) -> Self::IntoIter;
            }
            impl<I: Iterator> IntoIterator for I {
                type Item = I::Item;
                type IntoIter = I;
                fn into_iter(self) -> I {
                    self
                }
            }
            struct IndexRange {
                start: usize,
                end: usize,
            }
            pub struct IntoIter<T, const N: usize> {
                data: [T; N],
                range: IndexRange,
            }
            impl<T, const N: usize> IntoIterator for [T; N] {
                type Item = T;
                type IntoIter = IntoIter<T, N>;
                fn into_iter(self) -> Self::IntoIter {
                    IntoIter { data: self, range: IndexRange { start: 0, end: loop {} } }
                }
            }
            impl<T, const N: usize> Iterator for IntoIter<T, N> {
                type Item = T;
                fn next(&mut self) -> Option<T> {
                    loop {}
                }
            }
            pub struct Iter<'a, T> {
                slice: &'a [T],
            }
            impl<'a, T, const N: usize> IntoIterator for &'a [T; N] {
                type Item = &'a T;
                type IntoIter = Iter<'a, T>;
                fn into_iter(self) -> Self::IntoIter {
                    loop {}
                }
            }
            impl<'a, T> IntoIterator for &'a [T] {
                type Item = &'a T;
                type IntoIter = Iter<'a, T>;
                fn into_iter(self) -> Self::IntoIter {
                    loop {}
                }
            }
            impl<'a, T> Iterator for Iter<'a, T> {
                type Item = &'a T;
                fn next(&mut self) -> Option<T> {
                    loop {}
                }
            }
            pub trait FromIterator<A>: Sized {
                fn from_iter<T: IntoIterator<Item = A>>(iter: T) -> Self;
            }
        }
        pub use self::collect::{FromIterator, IntoIterator};
    }
    pub use self::traits::{FromIterator, IntoIterator, Iterator};
}

pub mod str {
    pub const unsafe fn from_utf8_unchecked(v: &[u8]) -> &str {
        ""
    }
    pub trait FromStr: Sized {
        type Err;
        fn from_str(s: &str) -> Result<Self, Self::Err>;
    }
    impl str {
        pub fn parse<F: FromStr>(&self) -> Result<F, F::Err> {
            FromStr::from_str(self)
        }
    }
}

pub mod panic {

    pub macro panic_2021 {
        () => ({
            const fn panic_cold_explicit() -> ! {
                $crate::panicking::panic_explicit()
            }
            panic_cold_explicit();
        }),
        // Special-case the single-argument case for const_panic.
        ("{}", $arg:expr $(,)?) => ({
            #[rustc_const_panic_str] // enforce a &&str argument in const-check and hook this by const-eval
            #[rustc_do_not_const_check] // hooked by const-eval
            const fn panic_cold_display<T: $crate::fmt::Display>(arg: &T) -> ! {
                $crate::panicking::panic_display(arg)
            }
            panic_cold_display(&$arg);
        }),
        ($($t:tt)+) => ({
            // Semicolon to prevent temporaries inside the formatting machinery from
            // being considered alive in the caller after the panic_fmt call.
            $crate::panicking::panic_fmt($crate::const_format_args!($($t)+));
        }),
    }
}

mod panicking {
    #[rustc_const_panic_str] // enforce a &&str argument in const-check and hook this by const-eval
    pub const fn panic_display<T: crate::fmt::Display>(x: &T) -> ! {
        panic_fmt(crate::format_args!("{}", *x));
    }

    // This function is used instead of panic_fmt in const eval.
    #[lang = "const_panic_fmt"]
    pub const fn const_panic_fmt(fmt: crate::fmt::Arguments<'_>) -> ! {
        if let Some(msg) = fmt.as_str() {
            // The panic_display function is hooked by const eval.
            panic_display(&msg);
        } else {
            loop {}
        }
    }

    #[lang = "panic_fmt"] // needed for const-evaluated panics
    pub const fn panic_fmt(fmt: crate::fmt::Arguments<'_>) -> ! {
        loop {}
    }

    #[lang = "panic"]
    pub const fn panic(expr: &'static str) -> ! {
        panic_fmt(crate::fmt::Arguments::from_str(expr))
    }
}

mod arch {
    #[rustc_builtin_macro]
    pub macro asm("assembly template", $(operands,)* $(options($(option),*))?) {
        /* compiler built-in */
    }
    #[rustc_builtin_macro]
    pub macro global_asm("assembly template", $(operands,)* $(options($(option),*))?) {
        /* compiler built-in */
    }
    #[rustc_builtin_macro]
    pub macro naked_asm("assembly template", $(operands,)* $(options($(option),*))?) {
        /* compiler built-in */
    }
}

#[macro_use]
mod macros {
    #[macro_export]
    #[rustc_builtin_macro(core_panic)]
    macro_rules! panic {
        ($($arg:tt)*) => {
            /* compiler built-in */
        };
    }

    #[macro_export]
    macro_rules! write {
        ($dst:expr, $($arg:tt)*) => {
            $dst.write_fmt($crate::format_args!($($arg)*))
        };
    }

    #[macro_export]
    #[allow_internal_unstable(format_args_nl)]
    macro_rules! writeln {
        ($dst:expr $(,)?) => {
            $crate::write!($dst, "\n")
        };
        ($dst:expr, $($arg:tt)*) => {
            $dst.write_fmt($crate::format_args_nl!($($arg)*))
        };
    }

    #[macro_export]
    #[rustc_builtin_macro]
    #[allow_internal_unstable(core_panic, edition_panic, generic_assert_internals)]
    macro_rules! assert {
        ($($arg:tt)*) => {
            /* compiler built-in */
        };
    }

    #[allow_internal_unstable(fmt_internals, const_fmt_arguments_new)]
    #[macro_export]
    #[rustc_builtin_macro]
    macro_rules! const_format_args {
        ($fmt:expr) => {{ /* compiler built-in */ }};
        ($fmt:expr, $($args:tt)*) => {{ /* compiler built-in */ }};
    }

    #[allow_internal_unstable(fmt_internals)]
    #[macro_export]
    #[rustc_builtin_macro]
    macro_rules! format_args {
        ($fmt:expr) => {{ /* compiler built-in */ }};
        ($fmt:expr, $($args:tt)*) => {{ /* compiler built-in */ }};
    }

    #[allow_internal_unstable(fmt_internals)]
    #[macro_export]
    #[rustc_builtin_macro]
    macro_rules! format_args_nl {
        ($fmt:expr) => {{ /* compiler built-in */ }};
        ($fmt:expr, $($args:tt)*) => {{ /* compiler built-in */ }};
    }

    #[macro_export]
    macro_rules! print {
        ($($arg:tt)*) => {{
            $crate::io::_print($crate::format_args!($($arg)*));
        }};
    }


    #[macro_export]
    #[allow_internal_unstable(core_panic)]
    macro_rules! todo {
        () => {
            $crate::panicking::panic("not yet implemented")
        };
        ($($arg:tt)+) => {
            $crate::panic!("not yet implemented: {}", $crate::format_args!($($arg)+))
        };
    }

    #[macro_export]
    #[allow_internal_unstable(core_panic)]
    macro_rules! unimplemented {
        () => {
            $crate::panicking::panic("not implemented")
        };
        ($($arg:tt)+) => {
            $crate::panic!("not implemented: {}", $crate::format_args!($($arg)+))
        };
    }

    pub(crate) mod builtin {
        #[rustc_builtin_macro]
        pub macro derive($item:item) {
            /* compiler built-in */
        }

        #[rustc_builtin_macro]
        pub macro derive_const($item:item) {
            /* compiler built-in */
        }
    }

    #[rustc_builtin_macro]
    #[macro_export]
    macro_rules! include {
        ($file:expr $(,)?) => {{ /* compiler built-in */ }};
    }


    #[rustc_builtin_macro]
    #[macro_export]
    macro_rules! concat {}

    #[rustc_builtin_macro]
    #[macro_export]
    macro_rules! env {}
    #[rustc_builtin_macro]
    #[macro_export]
    macro_rules! option_env {}

}

pub mod pat {
    #[macro_export]
    #[rustc_builtin_macro(pattern_type)]
    macro_rules! pattern_type {
        ($($arg:tt)*) => {
            /* compiler built-in */
        };
    }

    pub const trait RangePattern {
        #[lang = "RangeMin"]
        const MIN: Self;

        #[lang = "RangeMax"]
        const MAX: Self;

        #[lang = "RangeSub"]
        fn sub_one(self) -> Self;
    }

    impl const RangePattern for u8 {
        const MIN: u8 = 0;
        const MAX: u8 = 0xFF;
        fn sub_one(self) -> Self {
            if self == Self::MIN {
                panic!("exclusive range end at minimum value of type")
            } else {
                self - 1
            }
        }
    }

    impl const RangePattern for i32 {
        const MIN: i32 = 0x80_00_00_00;
        const MAX: i32 = 0x7F_FF_FF_FF;
        fn sub_one(self) -> Self {
            if self == Self::MIN {
                panic!("exclusive range end at minimum value of type")
            } else {
                self - 1
            }
        }
    }

    impl<T: crate::marker::PointeeSized, U: crate::marker::PointeeSized>
        crate::ops::CoerceUnsized<pattern_type!(*const U is !null)> for pattern_type!(*const T is !null)
    where
        T: crate::marker::Unsize<U>,
    {
    }

    impl<T: crate::ops::DispatchFromDyn<U>, U>
        crate::ops::DispatchFromDyn<pattern_type!(U is !null)> for pattern_type!(T is !null)
    {
    }
}


#[lang = "bool"]
impl bool {
    pub fn then_some<T>(self, t: T) -> Option<T> {
        if self { Some(t) } else { None }
    }

    pub fn then<T, F: FnOnce() -> T>(self, f: F) -> Option<T> {
        if self { Some(f()) } else { None }
    }
}

macro_rules! impl_int {
    ($($t:ty)*) => {
        $(
            impl $t {
                pub const fn from_ne_bytes(bytes: [u8; size_of::<Self>()]) -> Self {
                    unsafe { mem::transmute(bytes) }
                }
            }
        )*
    }
}

impl_int! {
    usize u8 u16 u32 u64 u128
    isize i8 i16 i32 i64 i128
}


impl f32 {
    pub const INFINITY: f32 = 0.0;
    pub const NEG_INFINITY: f32 = -0.0;
}

impl f64 {
    pub const INFINITY: f64 = 0.0;
    pub const NEG_INFINITY: f64 = -0.0;
}

pub mod f32 {
    #[deprecated]
    pub const INFINITY: f32 = 0.0;
    #[deprecated]
    pub const NEG_INFINITY: f32 = -0.0;
}

pub mod f64 {
    #[deprecated]
    pub const INFINITY: f64 = 0.0;
    #[deprecated]
    pub const NEG_INFINITY: f64 = -0.0;
}

#[rustc_builtin_macro]
#[macro_export]
macro_rules! column {
    () => {};
}

#[macro_export]
#[allow_internal_unstable(non_exhaustive_omitted_patterns_lint, stmt_expr_attributes)]
macro_rules! matches {
    ($expression:expr, $pattern:pat $(if $guard:expr)? $(,)?) => {
        #[allow(non_exhaustive_omitted_patterns)]
        match $expression {
            $pattern $(if $guard)? => true,
            _ => false
        }
    };
}

pub mod prelude {
    pub mod v1 {
        #[rustfmt::skip]
        pub use crate::{
            clone::Clone,                                 // :clone
            cmp::{Eq, PartialEq},                         // :eq
            cmp::{Ord, PartialOrd},                       // :ord
            convert::AsMut,                               // :as_mut
            convert::AsRef,                               // :as_ref
            convert::{From, Into, TryFrom, TryInto},      // :from
            default::Default,                             // :default
            fmt::derive::Debug,                           // :fmt, derive
            hash::derive::Hash,                           // :hash, derive
            iter::{FromIterator, IntoIterator, Iterator}, // :iterator
            macros::builtin::{derive, derive_const},      // :derive
            marker::Copy,                                 // :copy
            marker::Send,                                 // :send
            marker::Sized,                                // :sized
            marker::Sync,                                 // :sync
            mem::drop,                                    // :drop
            mem::size_of,                                 // :size_of
            ops::Drop,                                    // :drop
            ops::{Fn, FnMut, FnOnce},                     // :fn
            option::Option::{self, None, Some},           // :option
            panic,                                        // :panic
            result::Result::{self, Err, Ok},              // :result
            str::FromStr,                                 // :str
            write, writeln,                               // :write
            assert,                                       // :assert
            format_args, format_args_nl, const_format_args, print, // :fmt
            todo,                                         // :todo
            unimplemented,                                // :unimplemented
            include,                                      // :include
            concat,                                       // :concat
            env, option_env,                              // :env
            matches,                                      // :matches
        };
    }

    pub mod rust_2015 {
        pub use super::v1::*;
    }

    pub mod rust_2018 {
        pub use super::v1::*;
    }

    pub mod rust_2021 {
        pub use super::v1::*;
    }

    pub mod rust_2024 {
        pub use super::v1::*;
    }
}

#[prelude_import]
#[allow(unused)]
use prelude::v1::*;

// kernel-lint: the methods of integers, floats, raw pointers and slices that kernels call.
// Methods whose value can be computed without overflow rules (`pow`, `min`, `max`, `div_ceil`,
// ...) have real bodies, so constants built with them evaluate; the others only type.
macro_rules! kernel_int_methods {
    ($($t:ty)*) => {
        $(
            impl $t {
                pub const fn pow(self, mut exp: u32) -> $t {
                    let mut base = self;
                    let mut acc: $t = 1;
                    while exp > 0 {
                        if exp % 2 == 1 {
                            acc = acc * base;
                        }
                        exp = exp / 2;
                        if exp > 0 {
                            base = base * base;
                        }
                    }
                    acc
                }
                pub const fn min(self, other: $t) -> $t {
                    if self < other { self } else { other }
                }
                pub const fn max(self, other: $t) -> $t {
                    if self > other { self } else { other }
                }
                pub const fn clamp(self, lo: $t, hi: $t) -> $t {
                    if self < lo { lo } else if self > hi { hi } else { self }
                }
                pub const fn div_ceil(self, rhs: $t) -> $t {
                    let d = self / rhs;
                    if self % rhs != 0 { d + 1 } else { d }
                }
                pub const fn is_power_of_two(self) -> bool {
                    self != 0 && (self & (self - 1)) == 0
                }
                pub const fn next_power_of_two(self) -> $t {
                    let mut p: $t = 1;
                    while p < self {
                        p = p * 2;
                    }
                    p
                }
                pub const fn rem_euclid(self, rhs: $t) -> $t {
                    let r = self % rhs;
                    if r < 0 { r + rhs } else { r }
                }
                pub const fn abs_diff(self, other: $t) -> $t {
                    if self > other { self - other } else { other - self }
                }
                pub const fn wrapping_add(self, rhs: $t) -> $t {
                    panic!()
                }
                pub const fn wrapping_sub(self, rhs: $t) -> $t {
                    panic!()
                }
                pub const fn wrapping_mul(self, rhs: $t) -> $t {
                    panic!()
                }
                pub const fn saturating_sub(self, rhs: $t) -> $t {
                    panic!()
                }
                pub const fn saturating_add(self, rhs: $t) -> $t {
                    panic!()
                }
                pub const fn checked_add(self, rhs: $t) -> Option<$t> {
                    panic!()
                }
                pub const fn checked_sub(self, rhs: $t) -> Option<$t> {
                    panic!()
                }
                pub const fn checked_mul(self, rhs: $t) -> Option<$t> {
                    panic!()
                }
                pub const fn leading_zeros(self) -> u32 {
                    panic!()
                }
                pub const fn trailing_zeros(self) -> u32 {
                    panic!()
                }
                pub const fn count_ones(self) -> u32 {
                    panic!()
                }
                pub const fn rotate_left(self, n: u32) -> $t {
                    panic!()
                }
                pub const fn ilog2(self) -> u32 {
                    panic!()
                }
                pub const fn to_le_bytes(self) -> [u8; size_of::<Self>()] {
                    panic!()
                }
            }
        )*
    }
}

kernel_int_methods! {
    usize u8 u16 u32 u64 u128
    isize i8 i16 i32 i64 i128
}

macro_rules! kernel_int_bounds {
    ($($t:ty, $min:expr, $max:expr, $bits:expr;)*) => {
        $(
            impl $t {
                pub const MIN: $t = $min;
                pub const MAX: $t = $max;
                pub const BITS: u32 = $bits;
            }
        )*
    }
}

kernel_int_bounds! {
    u8, 0, 255, 8;
    u16, 0, 65535, 16;
    u32, 0, 4294967295, 32;
    u64, 0, 18446744073709551615, 64;
    usize, 0, 18446744073709551615, 64;
    i8, -128, 127, 8;
    i16, -32768, 32767, 16;
    i32, -2147483648, 2147483647, 32;
    i64, -9223372036854775808, 9223372036854775807, 64;
    isize, -9223372036854775808, 9223372036854775807, 64;
}

macro_rules! kernel_float_methods {
    ($($t:ty)*) => {
        $(
            impl $t {
                pub fn sqrt(self) -> $t { panic!() }
                pub fn rsqrt(self) -> $t { panic!() }
                pub fn abs(self) -> $t { panic!() }
                pub fn min(self, other: $t) -> $t { panic!() }
                pub fn max(self, other: $t) -> $t { panic!() }
                pub fn mul_add(self, a: $t, b: $t) -> $t { panic!() }
                pub fn floor(self) -> $t { panic!() }
                pub fn ceil(self) -> $t { panic!() }
                pub fn round(self) -> $t { panic!() }
                pub fn exp(self) -> $t { panic!() }
                pub fn ln(self) -> $t { panic!() }
                pub fn powi(self, n: i32) -> $t { panic!() }
                pub fn powf(self, n: $t) -> $t { panic!() }
                pub fn sin(self) -> $t { panic!() }
                pub fn cos(self) -> $t { panic!() }
                pub fn tanh(self) -> $t { panic!() }
                pub fn clamp(self, lo: $t, hi: $t) -> $t { panic!() }
                pub fn is_nan(self) -> bool { panic!() }
                pub fn to_bits(self) -> u64 { panic!() }
            }
        )*
    }
}

kernel_float_methods! { f32 f64 }

impl<T> *const T {
    pub const unsafe fn add(self, count: usize) -> *const T { panic!() }
    pub const unsafe fn sub(self, count: usize) -> *const T { panic!() }
    pub const unsafe fn offset(self, count: isize) -> *const T { panic!() }
    pub const fn wrapping_add(self, count: usize) -> *const T { panic!() }
    pub const fn cast<U>(self) -> *const U { panic!() }
    pub const fn is_null(self) -> bool { panic!() }
    pub const unsafe fn read(self) -> T { panic!() }
    pub unsafe fn read_volatile(self) -> T { panic!() }
    pub const unsafe fn as_ref<'a>(self) -> Option<&'a T> { panic!() }
}

impl<T> *mut T {
    pub const unsafe fn add(self, count: usize) -> *mut T { panic!() }
    pub const unsafe fn sub(self, count: usize) -> *mut T { panic!() }
    pub const unsafe fn offset(self, count: isize) -> *mut T { panic!() }
    pub const fn wrapping_add(self, count: usize) -> *mut T { panic!() }
    pub const fn cast<U>(self) -> *mut U { panic!() }
    pub const fn is_null(self) -> bool { panic!() }
    pub const unsafe fn read(self) -> T { panic!() }
    pub unsafe fn read_volatile(self) -> T { panic!() }
    pub const unsafe fn write(self, value: T) { panic!() }
    pub unsafe fn write_volatile(self, value: T) { panic!() }
    pub const unsafe fn as_mut<'a>(self) -> Option<&'a mut T> { panic!() }
}

pub mod kernel_slice {
    pub struct Iter<'a, T> {
        slice: &'a [T],
    }
    impl<'a, T> Iterator for Iter<'a, T> {
        type Item = &'a T;
        fn next(&mut self) -> Option<&'a T> {
            loop {}
        }
    }
    pub struct Chunks<'a, T> {
        slice: &'a [T],
        size: usize,
    }
    impl<'a, T> Iterator for Chunks<'a, T> {
        type Item = &'a [T];
        fn next(&mut self) -> Option<&'a [T]> {
            loop {}
        }
    }
    pub struct IterMut<'a, T> {
        slice: &'a mut [T],
    }
    impl<'a, T> Iterator for IterMut<'a, T> {
        type Item = &'a mut T;
        fn next(&mut self) -> Option<&'a mut T> {
            loop {}
        }
    }
}

impl<T> [T] {
    pub fn iter(&self) -> crate::kernel_slice::Iter<'_, T> { panic!() }
    pub fn iter_mut(&mut self) -> crate::kernel_slice::IterMut<'_, T> { panic!() }
    pub fn chunks(&self, size: usize) -> crate::kernel_slice::Chunks<'_, T> { panic!() }
    pub const fn as_ptr(&self) -> *const T { panic!() }
    pub fn as_mut_ptr(&mut self) -> *mut T { panic!() }
    pub unsafe fn get_unchecked(&self, index: usize) -> &T { panic!() }
    pub unsafe fn get_unchecked_mut(&mut self, index: usize) -> &mut T { panic!() }
    pub fn copy_from_slice(&mut self, src: &[T]) { panic!() }
    pub fn swap(&mut self, a: usize, b: usize) { panic!() }
    pub const fn is_empty(&self) -> bool { panic!() }
}

