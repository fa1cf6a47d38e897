// Placeholder: the engine's `replay --verify` command registers itself here.
import type { Command } from 'commander';

export function registerReplayCommand(_program: Command): void {}
