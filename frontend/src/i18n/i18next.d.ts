// Typed keys: `t("home:missing")` fails `tsc`, so a typo never reaches a user.
import "i18next";
import type common from "./locales/en/common.json";
import type conversation from "./locales/en/conversation.json";
import type home from "./locales/en/home.json";
import type navigation from "./locales/en/navigation.json";
import type overview from "./locales/en/overview.json";
import type repos from "./locales/en/repos.json";
import type settings from "./locales/en/settings.json";
import type status from "./locales/en/status.json";

declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "common";
    resources: {
      common: typeof common;
      conversation: typeof conversation;
      home: typeof home;
      navigation: typeof navigation;
      overview: typeof overview;
      repos: typeof repos;
      settings: typeof settings;
      status: typeof status;
    };
  }
}
