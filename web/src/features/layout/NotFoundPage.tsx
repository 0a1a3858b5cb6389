import { Link } from 'react-router-dom';

export function NotFoundPage() {
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Page not found</h1>
      </header>
      <p className="muted">There is nothing at this address.</p>
      <p>
        <Link to="/" className="button button-secondary">
          Go to your dashboard
        </Link>
      </p>
    </div>
  );
}
