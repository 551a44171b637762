// Waiting for a state instead of a time. A test that sleeps a fixed time and then checks a state
// fails on a machine slower than the one it was written on; one that polls for the state with a
// bound only there to stop a hang passes on a loaded machine and is no slower on a fast one.

/** How long `until` waits by default: far past any honest wait, well inside a test's timeout. */
const UNTIL_MS = 20_000;

/** Polls `check` every 20 ms until it holds; fails naming `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = UNTIL_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
