import { createContext, useContext } from 'react';

/**
 * The name of the CRM the page is about (HubSpot, Pipedrive, Salesforce):
 * the connected one, else the one that stopped accepting the connection, else
 * the only one this server offers; "your CRM" while none is chosen.
 */
export const CrmNameContext = createContext('your CRM');
export const useCrmName = () => useContext(CrmNameContext);
