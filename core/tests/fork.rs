//! A forked child must not share the parent's ObjectId random value. Its own test binary: fork
//! in a process with many test threads running is asking for trouble.
#![cfg(unix)]

use idmint_core::ObjectId;

#[test]
fn child_after_fork_gets_a_new_random_value() {
    let parent = ObjectId::new();
    let mut fds = [0i32; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let child = ObjectId::new().bytes();
        unsafe {
            libc::write(fds[1], child.as_ptr().cast(), 12);
            libc::_exit(0);
        }
    }
    let mut child = [0u8; 12];
    let n = unsafe { libc::read(fds[0], child.as_mut_ptr().cast(), 12) };
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(n, 12);
    let child = ObjectId::from_bytes(child);
    assert_ne!(
        child.random(),
        parent.random(),
        "child reused the parent's random value"
    );
    assert_eq!(
        ObjectId::new().random(),
        parent.random(),
        "the parent keeps its own"
    );
}
