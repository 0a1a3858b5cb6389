import { isRouteErrorResponse, useRouteError } from 'react-router-dom';

/** Last resort when a screen throws while rendering. */
export function RouteError() {
  const error = useRouteError();
  console.error(error);
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : 'An unexpected error occurred.';
  return (
    <main className="auth-screen">
      <section className="auth-card auth-card-narrow" aria-labelledby="route-error-title">
        <h1 id="route-error-title" className="auth-title">
          Something went wrong
        </h1>
        <p className="auth-lead">{message}</p>
        <button type="button" className="button button-primary" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </section>
    </main>
  );
}
