import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

export function DashboardPage() {
  return <ScreenPlaceholder title="Your Dashboard" />;
}
