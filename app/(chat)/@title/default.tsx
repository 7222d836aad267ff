export default function DefaultHeaderTitle() {
  return "Delegate";
}
