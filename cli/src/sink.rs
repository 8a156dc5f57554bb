//! Where the minting commands write their lines: a buffered, locked stdout, with a progress bar on
//! stderr for long runs watched from a terminal.

use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Large enough that a write to the pipe or file is one system call per few thousand IDs.
const BUFFER_BYTES: usize = 64 * 1024;

/// Below this many lines a run is over before a bar would be worth drawing.
const PROGRESS_FROM: u64 = 100_000;

/// Buffered output of `total` lines.
pub struct LineSink {
    out: BufWriter<StdoutLock<'static>>,
    bar: Option<ProgressBar>,
}

impl LineSink {
    /// A sink for `total` lines.
    pub fn new(total: u64) -> LineSink {
        // Only a person at a terminal wants the bar; in a log or a pipe it would be noise.
        let bar = (total >= PROGRESS_FROM && io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30} {human_pos}/{human_len} IDs, eta {eta}")
            {
                bar.set_style(style);
            }
            bar
        });
        LineSink {
            out: BufWriter::with_capacity(BUFFER_BYTES, io::stdout().lock()),
            bar,
        }
    }

    /// The writer to put lines into.
    pub fn out(&mut self) -> &mut impl Write {
        &mut self.out
    }

    /// Count `lines` more lines as written.
    pub fn advance(&mut self, lines: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(lines);
        }
    }

    /// Write out what is buffered; the error is the caller's to report.
    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for LineSink {
    fn drop(&mut self) {
        // Cleared on every way out, errors included, so a half-drawn bar never stays on screen
        // above the error message.
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
