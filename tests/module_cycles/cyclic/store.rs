mod conn;

pub(crate) struct Options;

pub(crate) fn open() {
    conn::connect();
}
