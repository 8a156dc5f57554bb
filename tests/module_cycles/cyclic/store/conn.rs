pub(crate) fn connect() -> super::Options {
    super::Options
}
