use crate::b::B;

pub struct A(pub B);

pub fn two() -> crate::facade::Two {
    crate::facade::Two
}
