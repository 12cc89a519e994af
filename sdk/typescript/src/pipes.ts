/**
 * Protobuf frames on the referee's pipes (docs/protocol.md, "Protobuf frames"): a bot whose
 * manifest says `transport = "stdio"` and `stdio_format = "protobuf"` is started by the
 * referee with `SPITE_STDIO=protobuf` and no address, and exchanges the same messages as on
 * gRPC, each one its size as a varint, then its protobuf bytes: BotMessages on stdout,
 * RefereeMessages on stdin. {@link runBot} plays that way by itself when `SPITE_STDIO=protobuf`.
 *
 * Reads and writes block (`readSync`, `writeSync` on descriptors 0 and 1): the session is the
 * process's only work, and between two of the referee's frames there is nothing else to do,
 * so a decision costs one `read(2)` and one `write(2)`, with no event-loop wake-up.
 *
 * @module
 */

import { readSync, writeSync } from "node:fs";

import { playCodec, type BotMessage, type RefereeMessage } from "./wire";

/** The variable the referee starts a stdio bot with: its manifest's `stdio_format`. */
export const STDIO_VARIABLE = "SPITE_STDIO";
/** The only stdio format this SDK speaks. */
export const FRAMES_FORMAT = "protobuf";
/** The longest varint a frame's size may take (a 64-bit value). */
export const MAX_VARINT_BYTES = 10;
/** Largest frame either side may send (the same cap as a gRPC message). */
export const MAX_FRAME_BYTES = 64 * 1024;

const CHUNK_BYTES = 1 << 16;
/** What {@link retryEagain} waits on (nothing ever wakes it: a 1 ms sleep). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * The referee's stream of frames cannot be read: a size over the cap, a size varint over
 * 10 bytes, a frame cut short, bytes that are no RefereeMessage.
 */
export class FrameError extends Error {
  override name = "FrameError";

  constructor(why: string) {
    super(`the referee's frames are unreadable: ${why}`);
  }
}

/** The next chunk of the referee's bytes, or null at the end of the stream. */
export type ReadChunk = () => Buffer | null;
/** Writes all of `data` to the referee. */
export type WriteAll = (data: Uint8Array) => void;

/** A varint: `n`'s 7-bit groups, low first, each but the last with its high bit set. */
export function varint(n: number): Buffer {
  const bytes: number[] = [];
  let rest = n;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/**
 * Frames as messages: RefereeMessages read from `readChunk`, BotMessages written with
 * `writeAll`. {@link fromStdio} is the pair a bot process plays on.
 */
export class PipeStream {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private closed = false;

  constructor(private readonly readChunk: ReadChunk, private readonly writeAll: WriteAll) {}

  /**
   * The referee's pipes: stdin and stdout, read and written directly. The process's stdout
   * stream (`console.log`, `process.stdout.write`) goes to stderr from now on, so that a
   * bot's print lands in its log instead of between two frames. (A child process that
   * inherits descriptor 1 still writes into the frames: give it `stdio: ["ignore", 2, 2]`.)
   */
  static fromStdio(): PipeStream {
    const stdoutWrite = process.stdout.write;
    process.stdout.write = process.stderr.write.bind(process.stderr) as typeof stdoutWrite;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    return new PipeStream(() => {
      const n = retryEagain(() => readSync(0, chunk, 0, chunk.length, null));
      return n === 0 ? null : Buffer.from(chunk.subarray(0, n));
    }, (data) => {
      for (let done = 0; done < data.length;) done += retryEagain(() => writeSync(1, data, done, data.length - done));
    });
  }

  /** Writes `message` as one frame. */
  send(message: BotMessage): void {
    if (this.closed) throw new Error("the bot wrote after it had closed its end of the pipes");
    const body = playCodec().requestSerialize(message);
    this.writeAll(Buffer.concat([varint(body.length), body]));
  }

  /** Stops writing: the referee closes the pipes when the session is over. */
  close(): void {
    this.closed = true;
  }

  /** The next RefereeMessage, or null at the end of the stream between frames; throws {@link FrameError}. */
  receive(): RefereeMessage | null {
    const body = this.nextFrame();
    if (body === null) return null;
    try {
      return playCodec().responseDeserialize(body);
    } catch (error) {
      throw new FrameError(`a frame of ${body.length} bytes is not a RefereeMessage (${(error as Error).message})`);
    }
  }

  /** The next frame's bytes, its size checked before any of it is read. */
  private nextFrame(): Buffer | null {
    for (;;) {
      if (this.buffer.length > 0) {
        const [size, head] = frameSize(this.buffer, this.ended);
        if (head > 0) {
          if (size > MAX_FRAME_BYTES) {
            throw new FrameError(`a frame of ${size} bytes, over ${MAX_FRAME_BYTES / 1024} KiB`);
          }
          if (this.buffer.length >= head + size) {
            const frame = this.buffer.subarray(head, head + size);
            this.buffer = this.buffer.subarray(head + size);
            return frame;
          }
          if (this.ended) {
            throw new FrameError(`a frame cut short by the end of the stream (${this.buffer.length - head} `
              + `of ${size} bytes)`);
          }
        }
      } else if (this.ended) {
        return null;
      }
      const chunk = this.readChunk();
      if (chunk === null) this.ended = true;
      else this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    }
  }
}

/**
 * The frame size at the start of `buffer` and the bytes its varint takes (0: not all of
 * the varint has arrived yet); throws {@link FrameError} for a varint over 10 bytes, or one
 * cut by the end of the stream (`ended`).
 */
function frameSize(buffer: Buffer, ended: boolean): [number, number] {
  let size = 0;
  let scale = 1;
  for (let i = 0; i < Math.min(buffer.length, MAX_VARINT_BYTES); i++) {
    const byte = buffer[i] ?? 0;
    size += (byte & 0x7f) * scale;  // exact up to 2^53; any size that large is over the cap anyway
    if (byte < 0x80) return [size, i + 1];
    scale *= 0x80;
  }
  if (buffer.length >= MAX_VARINT_BYTES) throw new FrameError(`a frame length over ${MAX_VARINT_BYTES} bytes`);
  if (ended) throw new FrameError("a frame length cut short");
  return [0, 0];
}

/**
 * `io()` (a `readSync` or `writeSync`), waiting out EAGAIN: Node makes descriptor 1
 * non-blocking once `process.stdout` exists, and a bot's code may do the same to 0 by
 * touching `process.stdin`; the pipe then says EAGAIN instead of waiting.
 */
function retryEagain(io: () => number): number {
  for (;;) {
    try {
      return io();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EOF") return 0;
      if (code !== "EAGAIN") throw error;
      Atomics.wait(PAUSE, 0, 0, 1);  // 1 ms
    }
  }
}
