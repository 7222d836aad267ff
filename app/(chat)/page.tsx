import { HomeView } from "@/components/chat/home-view";

export default function HomePage() {
  return <HomeView />;
}
