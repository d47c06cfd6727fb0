/**
 * How often a STARTING conversation is looked at: from 0.5 s, backing off to 3 s. Its own
 * module because Home's cards need it in the first JS and the conversation page's hook
 * (which also uses it) does not belong there.
 */
const STARTING_FIRST_POLL_MS = 500;
const STARTING_BACKOFF = 1.5;
export const FAST_POLL_MS = 3000;

/** Delay before the next look at a conversation that has been STARTING for `polls` looks. */
export function startingPollDelay(polls: number): number {
  return Math.min(FAST_POLL_MS, Math.round(STARTING_FIRST_POLL_MS * STARTING_BACKOFF ** polls));
}
