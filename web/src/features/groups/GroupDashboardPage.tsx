import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

export function GroupDashboardPage() {
  return <ScreenPlaceholder title="Group Dashboard" />;
}
