// The time the chat draws elapsed times with: it ticks once a second only while something moves.
import { useEffect, useState } from 'react';

/**
 * Now, moved on once a second while `isMoving(now)` holds (agents run, or ended rows are still
 * fading), still otherwise.
 */
export function useTickingNow(isMoving: (now: number) => boolean): number {
  const [now, setNow] = useState(Date.now());
  const moving = isMoving(now);
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [moving]);
  return now;
}
