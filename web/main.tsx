import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { SimClient } from './core/client';
import { initI18n, languageFromUrl } from './i18n/i18n';
import { App } from './components/App';
import './styles.css';

const language = languageFromUrl(window.location.search);
document.documentElement.lang = language;
const i18n = initI18n(language);
const client = new SimClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nextProvider i18n={i18n}>
      <App client={client} />
    </I18nextProvider>
  </StrictMode>,
);
