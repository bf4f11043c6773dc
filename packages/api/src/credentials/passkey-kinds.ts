// What kind of authenticator made a passkey, from the AAGUID it reports: a short list of the
// common ones (the FIDO Metadata Service has the full one). Unknown and all-zero AAGUIDs name nothing.

const KINDS: Record<string, string> = {
  'fbfc3007-154e-4ecc-8c0b-6e020557d7bd': 'iCloud Keychain',
  'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4': 'Google Password Manager',
  'adce0002-35bc-c60a-648b-0b25f1f05503': 'Chrome on Mac',
  '08987058-cadc-4b81-b6e1-30de50dcbe96': 'Windows Hello',
  '9ddd1817-af5a-4672-a2b9-3e3dd95000a9': 'Windows Hello',
  '6028b017-b1d4-4c02-b4b3-afcdafc96bb2': 'Windows Hello',
  'bada5566-a7aa-401f-bd96-45619a55120d': '1Password',
  'd548826e-79b4-db40-a3d8-11116f7e8349': 'Bitwarden',
  '531126d6-e717-415c-9320-3d9aa6981239': 'Dashlane',
  '53414d53-554e-4700-0000-000000000000': 'Samsung Pass',
};

/**
 * What a sign-in with the passkey tells apps it used (RFC 8176): `swk` for a synced passkey (a
 * password manager's, backed up), `hwk` for one bound to its device (a security key).
 */
export const passkeyMethodReference = (passkey: { deviceType: string; backedUp: boolean }): 'hwk' | 'swk' =>
  passkey.deviceType === 'multiDevice' || passkey.backedUp ? 'swk' : 'hwk';

/** The authenticator's kind, or null when its AAGUID is not one we know. */
export const passkeyKind = (aaguid: string): string | null => KINDS[aaguid.toLowerCase()] ?? null;
