import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { SimClient } from './core/client';
import { startI18n } from './i18n/i18n';
import { currentQuery, parsePageQuery } from './url/urlState';
import { App } from './components/App';
import { applyDisplay } from './components/display';
import './styles.css';

const language = parsePageQuery(currentQuery()).lang;
document.documentElement.lang = language;
// The reader's theme and text size, before the first paint.
applyDisplay();
// The worker starts loading the simulator while the page fetches its strings.
const client = new SimClient();
// For the crash-recovery test: makes the simulator's worker fail as an uncaught error would.
Object.assign(window, { slabscopeTest: { crashSimulator: () => client.crashForTest() } });

void startI18n(language).then((i18n) =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <I18nextProvider i18n={i18n}>
        <App client={client} />
      </I18nextProvider>
    </StrictMode>,
  ),
);
