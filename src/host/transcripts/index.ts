// The transcripts module's public face: write, read back, find and prune per-run JSONL files.
export {
  openTranscript,
  startTranscript,
  type OpenTranscriptOptions,
  type TranscriptWriter,
} from './writer.js';
export { findTranscript, readTranscript, type ReadTranscriptOptions, type TranscriptRead } from './reader.js';
export { pruneTranscripts, type PruneOptions, type PruneResult } from './prune.js';
export { checkReplay, closeDanglingToolUses, INTERRUPTED_RESULT, type Replay } from './resume.js';
export { parseDuration } from './duration.js';
export {
  checkAgentId,
  transcriptPath,
  TRANSCRIPT_VERSION,
  type TranscriptEnd,
  type TranscriptHeader,
  type TranscriptStatusLine,
} from './records.js';
