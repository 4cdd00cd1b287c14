/**
 * Layers for a host's own tests: a file system that fails on cue, the walker's file system in
 * memory, an injected machine environment and lock owner, and silent scan progress.
 */
export { type Fault, type FaultController, FaultyFileSystem, type FsCall, makeFaultyFileSystem } from "../layers/FaultyFileSystem.js"
export { type FsFault, type MemoryNode, type MemoryTree, WalkerFs } from "../platform/WalkerFs.js"
export { LockOwner, type LockOwnerShape } from "../services/FileLock.js"
