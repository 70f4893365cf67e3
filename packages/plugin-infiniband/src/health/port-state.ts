/** A port attribute as sysfs prints it: `"4: ACTIVE"` → code 4, name `ACTIVE`. */
export interface PortAttribute {
  readonly code: number;
  readonly name: string;
}

const ATTRIBUTE = /^(\d{1,3}):\s*([A-Za-z][A-Za-z0-9 _-]{0,40})$/;

/** Parses `state` or `phys_state` (`"4: ACTIVE"`, `"5: LinkUp"`); undefined for anything else. */
export function parsePortAttribute(text: string | undefined): PortAttribute | undefined {
  if (text === undefined) return undefined;
  const match = ATTRIBUTE.exec(text.trim());
  if (match === null) return undefined;
  return { code: Number(match[1]), name: (match[2] as string).trim() };
}

/** `state` code of an active port (IB_PORT_ACTIVE). */
export const PORT_STATE_ACTIVE = 4;
/** `phys_state` code of a port whose physical link is up (IB_PORT_PHYS_STATE_LINK_UP). */
export const PORT_PHYS_STATE_LINK_UP = 5;

/** Whether a port counts as up: `state` ACTIVE (4) and `phys_state` LinkUp (5). */
export function isPortUp(state: PortAttribute | undefined, physState: PortAttribute | undefined): boolean {
  return state?.code === PORT_STATE_ACTIVE && physState?.code === PORT_PHYS_STATE_LINK_UP;
}

/** The link layer of a port, normalized: `InfiniBand`, `Ethernet` (RoCE) or the raw text. */
export function normalizeLinkLayer(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  const lower = text.toLowerCase();
  if (lower === 'infiniband') return 'InfiniBand';
  if (lower === 'ethernet') return 'Ethernet';
  return text.slice(0, 40);
}
