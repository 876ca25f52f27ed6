// Shaping the HubSpot stand-in's portal for a test, as a portal's admins
// shape their own in HubSpot's settings.
import type { HubSpotSandbox } from '../../sandbox/hubspot/server.ts';

/** A number property the portal's admins added themselves (not HubSpot's): "Number of Employees" (`numberofemployees`), which a write-rule mapping can write. */
export function addPortalNumberProperty(hubspot: HubSpotSandbox, name = 'numberofemployees', label = 'Number of Employees'): void {
  const at = new Date().toISOString();
  hubspot.portal().properties.set(name, {
    name, label, type: 'number', fieldType: 'number', groupName: 'contactinformation', description: '', options: [], displayOrder: 100, hidden: false, formField: true,
    hubspotDefined: false, calculated: false, hasUniqueValue: false, readOnlyValue: false, archived: false, createdAt: at, updatedAt: at,
  });
}
