import { useNavigate } from 'react-router-dom';
import { ArrowLeftIcon, DocIcon, SparkIcon } from '../../components/icons.tsx';

/** The workspace's title bar: back to the group, the connection state, SUGGESTIONS and OPEN DOC. */
export function PlanningHeader(props: {
  groupRouteId: string;
  groupName: string;
  connected: boolean;
  waiting: boolean;
  docOpen: boolean;
  onSuggestions: () => void;
  onOpenDoc: () => void;
}) {
  const navigate = useNavigate();
  const { connected } = props;
  return (
    <header className="planning-header">
      <button
        type="button"
        className="icon-button"
        aria-label="Back to group dashboard"
        title="Back to group dashboard"
        onClick={() => navigate(`/groups/${props.groupRouteId}`)}
      >
        <ArrowLeftIcon />
      </button>
      <div className="planning-title">
        <h1 className="page-title">Campaign Planning</h1>
        <p className="muted planning-group-name">{props.groupName}</p>
      </div>
      <div className="planning-header-actions">
        <span className={connected ? 'planning-status is-connected' : 'planning-status'} role="status">
          <span className="planning-status-dot" aria-hidden="true" />
          {connected ? 'Connected' : 'Connecting...'}
        </span>
        <button
          type="button"
          className="button button-secondary"
          onClick={props.onSuggestions}
          disabled={props.waiting || !connected}
        >
          <SparkIcon />
          SUGGESTIONS
        </button>
        {props.docOpen ? null : (
          <button type="button" className="button button-primary" onClick={props.onOpenDoc}>
            <DocIcon />
            OPEN DOC
          </button>
        )}
      </div>
    </header>
  );
}
