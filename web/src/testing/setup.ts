// Each component test file starts with the app's styles, so components are laid out as in the app.
import '@mantine/core/styles.css';
import '../app.css';
