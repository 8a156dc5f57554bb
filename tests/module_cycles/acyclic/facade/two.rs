// Through the facade's re-export: this uses one.rs, not mod.rs.
use super::One;

pub struct Two;

impl Two {
    pub fn one(&self) -> One {
        One
    }
}
