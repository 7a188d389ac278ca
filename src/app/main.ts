// The web app entry. Views arrive with issue 7; for now it reports whether WebGPU works here.
import { createGpu } from '../gpu/device';

const root = document.getElementById('app')!;
createGpu()
  .then((gpu) => {
    root.innerHTML = '';
    const h = document.createElement('h1');
    h.textContent = 'Harness Lab';
    const p = document.createElement('p');
    p.textContent = `WebGPU ready: ${gpu.info.vendor} ${gpu.info.architecture}`.trim();
    root.append(h, p);
  })
  .catch((e: Error) => {
    root.querySelector('p')!.textContent = e.message;
  });
