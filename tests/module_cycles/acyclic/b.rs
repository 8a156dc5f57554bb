// crate::a::A in a comment
/* nested /* crate::a::A */ still a comment: crate::a */
/// A doc comment: [`A`](crate::a::A)
/// ```
/// use fixture::a::A;
/// ```
pub struct B;

const BRACE: char = '{';
const QUOTE: char = '\'';
const TEXT: &str = "crate::a::A { \" }";
const RAW: &str = r#"crate::a::A { "# ;
const BYTES: &[u8] = br"{ crate::a::A";

pub fn longest<'a>(x: &'a str, y: &'a str) -> &'a str {
    if x.len() > y.len() { x } else { y }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a::A;

    #[test]
    fn wraps() {
        let _ = A(B);
    }
}
