// An Android box's packages and apps (androidBox.ts): list, install, open, stop and clear them
// with stock `pm`, `am` and `cmd package` commands (docs/server.md, "Android backend").
import { BoxflowError } from '../../../errors.js';
import type { AndroidPackage, InstallResult, LauncherApp } from '../../../api/schemas.js';
import { sh } from '../../../api/shellQuote.js';
import { readApk, type ApkSet } from './apk.js';
import { kInstallTimeoutMs, type DeviceIo } from './deviceIo.js';
import { activityClass, checkPackageName, isPackageName } from './names.js';

const kMaxLinkChars = 3_000;

export class DeviceApps {
  readonly #io: DeviceIo;
  readonly #info: { serial: string; sdk: number };
  /** The box's scratch dir on the server, while it has one (a ZIP's APKs are extracted there). */
  readonly #scratchDir: () => string | undefined;
  /** The packages the box opened; stopped on release. */
  readonly opened = new Set<string>();

  constructor(io: DeviceIo, info: { serial: string; sdk: number }, scratchDir: () => string | undefined) {
    this.#io = io;
    this.#info = info;
    this.#scratchDir = scratchDir;
  }

  async #allPackages(): Promise<Array<{ packageName: string; apkPath: string; system: boolean }>> {
    const [all, third] = await Promise.all([this.#io.shell('pm list packages -f'), this.#io.shell('pm list packages -3')]);
    const thirdParty = new Set(third.split('\n').filter((l) => l.startsWith('package:')).map((l) => l.slice(8).trim()));
    return all
      .split('\n')
      .filter((l) => l.startsWith('package:'))
      .map((line) => {
        const eq = line.lastIndexOf('='); // paths contain `==` since Android 11
        const packageName = line.slice(eq + 1).trim();
        return { packageName, apkPath: line.slice(8, eq), system: !thirdParty.has(packageName) };
      });
  }

  async #runningNames(): Promise<Set<string>> {
    const out = await this.#io.shell(this.#info.sdk >= 26 ? 'ps -A -o NAME' : 'ps');
    return new Set(out.split('\n').slice(1).map((l) => l.trim().split(/\s+/).pop()!.split(':')[0]!).filter(Boolean));
  }

  async #version(packageName: string): Promise<string> {
    const out = await this.#io.shell(sh`dumpsys package ${packageName}`);
    const from = Math.max(0, out.indexOf('\nPackages:'));
    const m = /versionName=(.*)$/m.exec(out.slice(from));
    return m ? m[1]!.replace(/\r$/, '') : '';
  }

  async listPackages(types: ReadonlyArray<'system' | 'thirdParty'>, running: ReadonlyArray<'running' | 'notRunning'> | undefined): Promise<AndroidPackage[]> {
    const [all, names] = await Promise.all([this.#allPackages(), this.#runningNames()]);
    const picked = all
      .map((p) => ({ ...p, pkgType: (p.system ? 'system' : 'thirdParty') as 'system' | 'thirdParty', isRunning: names.has(p.packageName) }))
      .filter((p) => types.includes(p.pkgType))
      .filter((p) => !running?.length || running.includes(p.isRunning ? 'running' : 'notRunning'));
    const out: AndroidPackage[] = [];
    for (let i = 0; i < picked.length; i += 4) {
      const batch = picked.slice(i, i + 4);
      const versions = await Promise.all(batch.map((p) => this.#version(p.packageName)));
      batch.forEach((p, k) => out.push({ name: p.packageName, packageName: p.packageName, apkPath: p.apkPath, version: versions[k]!, pkgType: p.pkgType, isRunning: p.isRunning }));
    }
    return out;
  }

  async getPackage(packageName: string): Promise<AndroidPackage> {
    checkPackageName(packageName);
    const [all, names] = await Promise.all([this.#allPackages(), this.#runningNames()]);
    const p = all.find((x) => x.packageName === packageName);
    if (!p) throw new BoxflowError('PACKAGE_NOT_FOUND', `no package "${packageName}" is installed on device ${this.#info.serial}`);
    return { name: p.packageName, packageName, apkPath: p.apkPath, version: await this.#version(packageName), pkgType: p.system ? 'system' : 'thirdParty', isRunning: names.has(packageName) };
  }

  async listApps(): Promise<LauncherApp[]> {
    const out = await this.#io.shell('cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER');
    const apps: LauncherApp[] = [];
    for (const line of out.split('\n').map((l) => l.trim())) {
      const m = /^([\w.]+)\/([\w.$]+)$/.exec(line);
      if (!m) continue;
      const full = m[2]!.startsWith('.') ? m[1]! + m[2]! : m[2]!;
      apps.push({ packageName: m[1]!, activityName: m[2]!, activityClassName: full });
    }
    return apps;
  }

  /**
   * "Close all apps": force-stops every running package that the launcher shows (a MAIN/LAUNCHER
   * activity, query-activities), system apps such as the browser or Settings included, whoever opened
   * it; the keyboard in use stays. Answers the packages stopped.
   */
  async closeAll(): Promise<string[]> {
    const [apps, names, ime] = await Promise.all([this.listApps(), this.#runningNames(), this.#io.shell('settings get secure default_input_method')]);
    const keep = ime.trim().split('/')[0];
    const stop = [...new Set(apps.map((a) => a.packageName))].filter((p) => names.has(p) && p !== keep);
    await this.#io.quietBatch(stop.map((p) => sh`am force-stop ${p}`));
    return stop;
  }

  /**
   * Starts an activity of a package: `className` as names.ts reads it (`.Main`, `Main`, `a.b.Main`,
   * `pkg/.Main`); `extras` as string extras. An activity that does not exist is 404
   * PACKAGE_NOT_FOUND when the package is not installed, else 422.
   */
  async openApp(packageName: string, className: string, extras: Record<string, string> = {}): Promise<void> {
    checkPackageName(packageName);
    const cls = activityClass(packageName, className);
    const es = Object.entries(extras).map(([k, v]) => sh` --es ${k} ${v}`).join('');
    const out = await this.#io.shell(sh`am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n ${`${packageName}/${cls}`}` + es);
    const error = /^Error: (.*)$/m.exec(out);
    if (error) {
      if (/does not exist/.test(error[1]!)) {
        await this.#requireInstalled(packageName);
        throw new BoxflowError('UNPROCESSABLE', `${packageName} has no activity ${cls}: ${error[1]}`);
      }
      throw new BoxflowError('DEVICE_ERROR', `cannot open ${packageName}/${cls}: ${error[1]}`);
    }
    this.opened.add(packageName);
  }

  /** Opens `activityName` of a package (see openApp), else its launcher activity. */
  async launch(packageName: string, activityName?: string, extras?: Record<string, string>): Promise<void> {
    checkPackageName(packageName);
    if (activityName !== undefined) activityClass(packageName, activityName);
    if (!activityName) {
      const app = (await this.listApps()).find((a) => a.packageName === packageName);
      if (!app) {
        await this.#requireInstalled(packageName);
        throw new BoxflowError('UNPROCESSABLE', `${packageName} has no launcher activity; name one in activityName`);
      }
      activityName = app.activityClassName;
    }
    await this.openApp(packageName, activityName, extras);
  }

  async closeApp(packageName: string): Promise<void> {
    await this.#requireInstalled(packageName);
    await this.#io.shell(sh`am force-stop ${packageName}`);
  }

  async clearAppData(packageName: string): Promise<void> {
    await this.#requireInstalled(packageName);
    const out = (await this.#io.shell(sh`pm clear ${packageName}`)).trim();
    if (out !== 'Success') throw new BoxflowError('DEVICE_ERROR', `pm clear ${packageName} failed: ${out.split('\n')[0] || 'no output'}`);
  }

  async #requireInstalled(packageName: string): Promise<void> {
    checkPackageName(packageName);
    const out = await this.#io.shell(sh`pm path ${packageName}`);
    if (!out.includes('package:')) throw new BoxflowError('PACKAGE_NOT_FOUND', `no package "${packageName}" is installed on device ${this.#info.serial}`);
  }

  /**
   * Opens a link as Android does: a VIEW intent, which the app that claims the URL (or the browser)
   * receives. `-W` waits for the launch and names the activity that took it.
   */
  async openLink(url: string): Promise<{ activity: string | undefined }> {
    if (!/^[a-z][a-z\d+.-]*:[^\x00-\x1f]+$/i.test(url)) throw new BoxflowError('INVALID_URL', `/url "${url.slice(0, 200)}" is not an absolute URL (scheme:…, no control characters)`);
    // The v1 shell request is limited to 4 KiB, quoting and the command included.
    if (url.length > kMaxLinkChars) throw new BoxflowError('INVALID_URL', `/url is ${url.length} characters; an Android box opens links of up to ${kMaxLinkChars}`);
    const out = await this.#io.shell(sh`am start -W -a android.intent.action.VIEW -d ${url}`);
    const error = /^Error: (.*)$/m.exec(out);
    if (error) {
      const unresolved = /unable to resolve Intent/.test(error[1]!);
      throw new BoxflowError(unresolved ? 'UNPROCESSABLE' : 'DEVICE_ERROR', unresolved ? `no app on device ${this.#info.serial} opens ${url.slice(0, 200)}` : `cannot open ${url.slice(0, 200)}: ${error[1]}`);
    }
    const activity = /^Activity: (\S+)$/m.exec(out)?.[1];
    if (activity) this.opened.add(activity.split('/')[0]!);
    return { activity };
  }

  /** Installs an APK, or every APK of a ZIP as one session, from a file on the server's disk. */
  async install(file: string, open: boolean): Promise<InstallResult> {
    if (this.#info.sdk < 24) throw new BoxflowError('UNPROCESSABLE', `streamed installs need Android 7 (API 24, \`cmd package\`); device ${this.#info.serial} runs API ${this.#info.sdk}`);
    // The APKs of a ZIP are extracted into the box's scratch dir, so a reaping finds them after a crash.
    const set: ApkSet = await readApk(file, this.#scratchDir());
    try {
      if (!isPackageName(set.manifest.packageName)) throw new BoxflowError('INSTALL_FAILED', `the APK names an invalid package ${JSON.stringify(set.manifest.packageName.slice(0, 100))}`);
      if (set.apks.length === 1) {
        const apk = set.apks[0]!;
        const out = (await this.#io.exec(sh`cmd package install -S ${apk.size}`, apk.open(), kInstallTimeoutMs)).toString('utf8').trim();
        if (!out.startsWith('Success')) throw installError(out);
      } else {
        const total = set.apks.reduce((a, b) => a + b.size, 0);
        const created = (await this.#io.exec(sh`cmd package install-create -S ${total}`)).toString('utf8');
        const found = /\[(\d{1,15})\]/.exec(created)?.[1];
        if (!created.startsWith('Success') || !found) throw installError(created.trim());
        const id = Number(found);
        try {
          for (const apk of set.apks) {
            const out = (await this.#io.exec(sh`cmd package install-write -S ${apk.size} ${id} ${apk.name} -`, apk.open(), kInstallTimeoutMs)).toString('utf8').trim();
            if (!out.startsWith('Success')) throw installError(out);
          }
          const out = (await this.#io.exec(sh`cmd package install-commit ${id}`, undefined, kInstallTimeoutMs)).toString('utf8').trim();
          if (!out.startsWith('Success')) throw installError(out);
        } catch (err) {
          await this.#io.exec(sh`cmd package install-abandon ${id}`).catch(() => {});
          throw err;
        }
      }
    } finally {
      await set.close();
    }
    const m = set.manifest;
    const path = (await this.#io.shell(sh`pm path ${m.packageName}`)).split('\n').find((l) => l.startsWith('package:'));
    const launcher = m.activities.find((a) => a.isLauncher);
    if (open && launcher) await this.openApp(m.packageName, launcher.className);
    return { packageName: m.packageName, apkPath: path ? path.slice(8).trim() : '', pkgType: 'thirdParty', activities: m.activities };
  }
}

function installError(out: string): BoxflowError {
  const reason = /Failure \[(.*?)\]/.exec(out)?.[1] ?? out.split('\n')[0] ?? 'no output';
  return new BoxflowError('INSTALL_FAILED', `the device refused the install: ${reason}`);
}
