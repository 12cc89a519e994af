//! Protobuf frames on the referee's pipes (docs/protocol.md, "Protobuf frames"): a bot whose
//! manifest says `transport = "stdio"` and `stdio_format = "protobuf"` is started by the
//! referee with `SPITE_STDIO=protobuf` and no address, and exchanges the same messages as on
//! gRPC, each one its size as a varint, then its protobuf bytes: BotMessages on stdout,
//! RefereeMessages on stdin. [`crate::run`] plays that way by itself when `SPITE_STDIO=protobuf`.
//!
//! Reads and writes block, on the bot's own thread (no async runtime, no thread of the
//! connection): a decision costs one `read(2)` and one `write(2)`.

use std::io::{self, BufRead, Read, Write};

use prost::Message;

use crate::client::{Error, MAX_MESSAGE_BYTES};
use crate::proto as pb;

/// The environment variable the referee starts a stdio bot with: its manifest's `stdio_format`.
pub const STDIO_VARIABLE: &str = "SPITE_STDIO";
/// The only stdio format this SDK speaks.
pub const FRAMES_FORMAT: &str = "protobuf";
/// The longest varint a frame's size may take (a 64-bit value).
const MAX_VARINT_BYTES: usize = 10;

/// The referee's stream of frames cannot be read: a size over the cap, a size varint over
/// 10 bytes, a frame cut short, bytes that are no RefereeMessage ([`Error::Protocol`]).
fn unreadable(why: impl std::fmt::Display) -> Error {
    Error::Protocol(format!("the referee's frames are unreadable: {why}"))
}

/// RefereeMessages read from `input`, BotMessages written to `output`, one frame each.
pub(crate) struct Pipes<'a> {
    pub(crate) input: &'a mut dyn BufRead,
    pub(crate) output: &'a mut dyn Write,
}

impl Pipes<'_> {
    /// Writes `message` as one frame and flushes it.
    pub(crate) fn send(&mut self, message: &pb::BotMessage) -> Result<(), Error> {
        let frame = message.encode_length_delimited_to_vec();
        self.output.write_all(&frame).and_then(|()| self.output.flush()).map_err(|error| {
            Error::Protocol(format!("the referee stopped reading the bot's stdout (its session is over): {error}"))
        })
    }

    /// The referee's next message, or `None` at the end of the stream between frames.
    pub(crate) fn receive(&mut self) -> Result<Option<pb::RefereeMessage>, Error> {
        let Some(body) = read_frame(self.input)? else { return Ok(None) };
        pb::RefereeMessage::decode(body.as_slice()).map(Some).map_err(|error| {
            unreadable(format_args!("a frame of {} bytes is not a RefereeMessage ({error})", body.len()))
        })
    }
}

/// One frame's bytes, its size checked before any of it is read; `None` at the end of the
/// stream between frames.
fn read_frame(input: &mut dyn BufRead) -> Result<Option<Vec<u8>>, Error> {
    let failed = |error: io::Error| unreadable(format_args!("reading stdin failed: {error}"));
    let mut size: u64 = 0;
    let mut byte = [0u8; 1];
    for i in 0..=MAX_VARINT_BYTES {
        if i == MAX_VARINT_BYTES {
            return Err(unreadable("a frame length over 10 bytes"));
        }
        let read = loop {
            match input.read(&mut byte) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                read => break read.map_err(failed)?,
            }
        };
        if read == 0 {
            if i == 0 {
                return Ok(None);
            }
            return Err(unreadable("a frame length cut short"));
        }
        let b = byte[0];
        if i == MAX_VARINT_BYTES - 1 && b > 1 && b < 0x80 {
            return Err(unreadable("a frame length over 64 bits"));
        }
        size |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            break;
        }
    }
    if size > MAX_MESSAGE_BYTES as u64 {
        return Err(unreadable(format_args!("a frame of {size} bytes, over {} KiB", MAX_MESSAGE_BYTES >> 10)));
    }
    let mut body = Vec::with_capacity(size as usize);
    input.take(size).read_to_end(&mut body).map_err(failed)?;
    if (body.len() as u64) < size {
        return Err(unreadable(format_args!(
            "a frame cut short by the end of the stream ({} of {size} bytes)",
            body.len()
        )));
    }
    Ok(Some(body))
}

/// The protocol's own stdout: a copy of descriptor 1, which then points at stderr, so that a
/// bot's `println!` lands in its log instead of between two frames.
#[cfg(unix)]
pub(crate) fn take_over_stdout() -> io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    unsafe extern "C" {
        fn dup2(old: i32, new: i32) -> i32;
    }
    io::stdout().flush()?;
    let protocol = io::stdout().as_fd().try_clone_to_owned()?; // close-on-exec: no child inherits it
    // SAFETY: dup2 on the process's own descriptors 2 and 1 (Rust's stdout, flushed above,
    // writes to whatever 1 is); no memory is involved.
    if unsafe { dup2(2, 1) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(std::fs::File::from(protocol))
}

#[cfg(not(unix))]
pub(crate) fn take_over_stdout() -> io::Result<std::fs::File> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "the referee's pipes need a Unix system"))
}
