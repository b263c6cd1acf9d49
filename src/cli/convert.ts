// `boxflow convert maestro PATHS --out DIR`: each Maestro flow becomes a boxflow flow with the
// same steps, in the form a person would keep (a condition stays a condition, an id reads as one);
// the flows its runFlow steps call are converted too and the scripts copied, so the converted
// folder validates and runs on its own.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import { BoxflowError } from '../errors.js';
import { discoverFlows, isMaestroFlow, maestroToBoxflow } from '../flow/index.js';

const flowName = (file: string) => file.replace(/\.ya?ml$/i, '.flow.yaml');

export async function runConvertMaestro(paths: string[], opts: { out: string }): Promise<number> {
  const cwd = process.cwd();
  const outDir = resolve(cwd, opts.out);
  const roots = await Promise.all(paths.map(async (p) => ({ arg: resolve(cwd, p), files: await discoverFlows([p], cwd) })));
  const queue: Array<{ file: string; base: string }> = roots.flatMap((r) => r.files.map((file) => ({ file, base: r.files.length === 1 && r.files[0] === r.arg ? dirname(r.arg) : r.arg })));
  // Flows named (or found at the top of a folder) become *.flow.yaml; the ones only runFlow calls
  // keep their names, so that `boxflow test DIR` runs the same flows Maestro ran.
  const top = new Set(queue.map((q) => q.file));
  const outName = (file: string, name: string) => (top.has(file) ? flowName(name) : name);
  const done = new Set<string>();
  let written = 0;
  while (queue.length) {
    const { file, base } = queue.shift()!;
    if (done.has(file)) continue;
    done.add(file);
    const rel = relative(base, file);
    const text = await readFile(file, 'utf8');
    if (!isMaestroFlow(text) && !top.has(file)) {
      // A boxflow flow that a Maestro flow calls is already what convert writes.
      const to = join(outDir, rel);
      await mkdir(dirname(to), { recursive: true });
      await copyFile(file, to);
      continue;
    }
    if (!isMaestroFlow(text)) throw new BoxflowError('FLOW_SCHEMA', `${relative(cwd, file)}: not a Maestro flow (a config with appId or url, ---, a command list)`);
    const { doc } = maestroToBoxflow(text, file, { idiomatic: true });
    // Paths stay relative to the flow; called flows get their converted names.
    const visit = (steps: unknown): void => {
      if (!Array.isArray(steps)) return;
      for (const step of steps) {
        if (typeof step !== 'object' || step === null) continue;
        const s = step as Record<string, Record<string, unknown>>;
        if (s.runFlow?.file !== undefined && !String(s.runFlow.file).includes('${')) {
          const target = resolve(dirname(file), String(s.runFlow.file));
          queue.push({ file: target, base });
          s.runFlow.file = outName(target, String(s.runFlow.file));
        }
        if (s.runScript && !String(s.runScript.file).includes('${')) scripts.push(resolve(dirname(file), String(s.runScript.file)));
        // A baseline image next to the flow goes with it (Maestro's assertScreenshot path).
        const baseline = s.assertScreenshot?.baseline;
        if (baseline !== undefined && !String(baseline).includes('${') && existsSync(resolve(dirname(file), String(baseline)))) scripts.push(resolve(dirname(file), String(baseline)));
        // So do the media addMedia puts in the gallery.
        const media = s.setDevice?.media;
        if (Array.isArray(media)) for (const m of media) if (!String(m).includes('${')) scripts.push(resolve(dirname(file), String(m)));
        // Steps that hold steps: repeat, retry, a runFlow of inline steps.
        for (const k of ['runFlow', 'repeat', 'retry']) visit(s[k]?.steps);
      }
    };
    /** Files the flow reads as it runs (scripts, baseline images, media), copied beside it. */
    const scripts: string[] = [];
    for (const k of ['onStart', 'steps', 'onFinish']) visit(doc[k]);
    const target = join(outDir, outName(file, rel));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, `# Converted from the Maestro flow ${basename(file)} by boxflow convert maestro\n${stringify(doc, { lineWidth: 0 })}`);
    written++;
    for (const script of scripts) {
      const to = join(outDir, relative(base, script));
      await mkdir(dirname(to), { recursive: true });
      await copyFile(script, to);
    }
  }
  process.stdout.write(`${written} flow${written === 1 ? '' : 's'} written to ${relative(cwd, outDir) || '.'}\n`);
  return 0;
}
