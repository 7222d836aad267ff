/** No chat open: the header names the app (a route of its own, so leaving a chat does not keep its title). */
export default function HomeHeaderTitle() {
  return "Delegate";
}
