/** `aifabric demo`: the built-in example end to end, results written as JSON (and a report) into a folder. */
import { Command } from '@commander-js/extra-typings';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run the built-in example: Llama-3-70B-class job on 8 x H100 nodes, TCP vs RoCE vs InfiniBand, 1 to 128 nodes')
    .option('--out <dir>', 'folder for the JSON results (created if missing)', 'aifabric-out')
    .option('--json', 'print the comparison envelope as JSON instead of tables')
    .action(async (options) => {
      const path = await import('node:path');
      const { runDemo } = await import('../../demo/demo.js');
      const { writeFileAtomic } = await import('../../core/atomic-write.js');
      const { toJson } = await import('../emit.js');
      const { renderCompareText, renderScaleText } = await import('../render/plan-text.js');
      const results = runDemo();
      const written: string[] = [];
      const write = (name: string, value: unknown): void => {
        const file = path.join(options.out, name);
        writeFileAtomic(file, toJson(value));
        written.push(file);
      };
      write('compare.json', results.compare);
      write('scale.json', results.scale);
      for (const collective of results.collectives) write(`collective-${String(collective.inputs.fabric)}.json`, collective);
      // The report needs vega: imported here only, so other commands never load it.
      const { renderReport } = await import('../../report/index.js');
      const reportPath = path.join(options.out, 'report.html');
      writeFileAtomic(reportPath, await renderReport([results.compare, results.scale, ...results.collectives], { title: 'aifabric demo' }));
      written.push(reportPath);
      if (options.json) {
        process.stdout.write(toJson({ compare: results.compare, scale: results.scale }));
        return;
      }
      process.stdout.write('== Which fabric for this job? (8 nodes)\n');
      process.stdout.write(renderCompareText(results.compare));
      process.stdout.write('\n== Scaling\n');
      process.stdout.write(renderScaleText(results.scale));
      process.stdout.write(`\nwrote ${written.join(', ')}\n`);
    });
}
