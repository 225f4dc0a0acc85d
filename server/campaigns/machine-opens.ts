/*
 * Opens a machine made (issue 16, point 8). Apple Mail Privacy Protection fetches every image of
 * every mail through its proxies, whether or not anyone reads it, announcing itself only as a bare
 * "Mozilla/5.0"; mail security gateways and bots fetch images to scan them. Such an open is
 * recorded, flagged, and left out of the open counts. Gmail's image proxy fetches when the reader
 * opens the mail, so it counts as a read. Opens that cannot be told apart still count.
 */

/** User agents of privacy proxies, image scanners and bots. */
const MACHINE_AGENTS =
  /^Mozilla\/5\.0$|bot\b|crawler|spider|barracuda|mimecast|proofpoint|symantec|messagelabs|zscaler|forcepoint|trend ?micro|fireeye|safelinks|microsoft office protection|sophos|headless|python-requests|curl\/|wget\//i;

export function isMachineOpen(userAgent: string | null): boolean {
  return !userAgent?.trim() || MACHINE_AGENTS.test(userAgent.trim());
}
