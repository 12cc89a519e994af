/**
 * The wire contract, loaded at run time from the repository's `proto/` directory (never
 * a copy of it). The TypeScript types in `generated/` are made from the same files at
 * build time by `proto-loader-gen-types`, with the same options as {@link LOADER_OPTIONS}.
 */

import { existsSync } from "node:fs";
import * as path from "node:path";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import type { ProtoGrpcType as ArenaGrpcType } from "./generated/arena";
import type { ProtoGrpcType as RefereeGrpcType } from "./generated/referee";
import type { RefereeDefinition } from "./generated/spite/v1/Referee";

/** Both services' generated types: the Referee (referee.proto) and the lobby (arena.proto). */
type ProtoGrpcType = { spite: { v1: RefereeGrpcType["spite"]["v1"] & ArenaGrpcType["spite"]["v1"] } };

export type { ArenaClient } from "./generated/spite/v1/Arena";
export type { Assignment__Output as Assignment } from "./generated/spite/v1/Assignment";
export type { BotMessage } from "./generated/spite/v1/BotMessage";
export type { RefereeClient } from "./generated/spite/v1/Referee";
export type { RefereeMessage__Output as RefereeMessage } from "./generated/spite/v1/RefereeMessage";

/** The file every other proto file of a match is reached from. */
export const REFEREE_PROTO = "spite/v1/referee.proto";
/** The hosted ladder's lobby (docs/hosting.md), served next to the Referee. */
export const ARENA_PROTO = "spite/v1/arena.proto";

/** Keep in step with the `generate` script in package.json (the generated types assume these). */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/**
 * The directory holding `spite/v1/*.proto`: `SPITE_PROTO_DIR` if set, else the nearest
 * `proto/` directory above this file (the repository's, for the SDK inside it).
 */
export function protoDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env["SPITE_PROTO_DIR"]?.trim();
  if (configured) return path.resolve(configured);
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "proto");
    if (existsSync(path.join(candidate, REFEREE_PROTO))) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(`cannot find ${REFEREE_PROTO} in a proto/ directory above ${__dirname}; `
    + "set SPITE_PROTO_DIR to the directory that holds spite/v1/");
}

let loaded: { definition: protoLoader.PackageDefinition; grpcObject: ProtoGrpcType } | undefined;

function load(): { definition: protoLoader.PackageDefinition; grpcObject: ProtoGrpcType } {
  if (loaded === undefined) {
    const definition = protoLoader.loadSync([REFEREE_PROTO, ARENA_PROTO], { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
    loaded = { definition, grpcObject: grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType };
  }
  return loaded;
}

/** The generated-at-load-time `spite.v1` package: message definitions and the Referee and Arena client classes. */
export function spiteV1(): ProtoGrpcType["spite"]["v1"] {
  return load().grpcObject.spite.v1;
}

/** The Play method's (de)serializers: a message's bytes exactly as they travel on the stream. */
export function playCodec(): RefereeDefinition["Play"] {
  return spiteV1().Referee.service.Play;
}
