// The transcripts module's public face: write, read back, find and prune per-run JSONL files.
export { startTranscript, type TranscriptWriter } from './writer.js';
export { readTranscript } from './reader.js';
export { checkReplay } from './resume.js';
