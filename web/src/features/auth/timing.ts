// The sign-in return (callback) screen's timing, as the specification fixes it.

/** Wait before the first check, so the server's session is in place. */
export const CALLBACK_INITIAL_WAIT_MS = 1000;
/** Further checks when the first says "not authenticated". */
export const CALLBACK_MAX_RETRIES = 3;
export const CALLBACK_RETRY_DELAY_MS = 1000;
/** How long the failure message shows before going to /login. */
export const CALLBACK_FAILURE_REDIRECT_MS = 2000;
