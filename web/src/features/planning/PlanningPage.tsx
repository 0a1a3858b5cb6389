import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

export function PlanningPage() {
  return <ScreenPlaceholder title="Campaign Planning" />;
}
