// The child process of sealing.ts: seals the customers it is asked for, one step at a time, and
// ends with its parent (the IPC channel closing).
import { customerSealer, type SealedCustomer } from './dataset.js';
import type { SealedStep, StepRequest } from './sealing.js';

let sealer: { key: string; tenantId: string; seal: (i: number) => SealedCustomer } | undefined;

process.on('message', (request: StepRequest) => {
  const { dataKey, tenantId, from, to } = request;
  if (sealer?.key !== dataKey || sealer.tenantId !== tenantId) {
    sealer = {
      key: dataKey,
      tenantId,
      seal: customerSealer(Buffer.from(dataKey, 'base64'), tenantId),
    };
  }
  const step: SealedStep = { from, to, customers: [] };
  for (let i = from; i < to; i++) step.customers.push(sealer.seal(i));
  process.send?.(step);
});
