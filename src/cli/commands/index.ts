/** Every command's register function, in the order `aifabric --help` lists them. */
import type { Command } from '@commander-js/extra-typings';

export type RegisterCommand = (program: Command) => void;

export const commandRegistrations: RegisterCommand[] = [];
