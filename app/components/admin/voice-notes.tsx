import { SettingsPanel, SubmitButton, TextArea } from "../ui/form";
import { TenantForm } from "./tenant-form";

/**
 * The tenant's voice notes (issue 36, target 4; decision 047): how its leader writes, given to the
 * language model with every "Suggest a subject line" and "Draft the LinkedIn post". Its own
 * section of the tenant page, saved on its own.
 */
export function VoiceNotesSettings({
  tenantId,
  notes,
  maxLength,
  llmOn,
  message,
}: {
  tenantId: string;
  notes: string;
  maxLength: number;
  /** whether LLM_BASE_URL and LLM_MODEL are set on this installation */
  llmOn: boolean;
  /** what the last save said, when it was refused */
  message: string | null;
}) {
  return (
    <SettingsPanel
      id="voice"
      title="Voice notes"
      message={message}
      intro={
        <p className="mt-2 text-sm">
          How the leader writes: tone, words to use and avoid, how posts end. Drafts of subject
          lines and LinkedIn posts follow these notes and the three most recent newsletters. A draft
          only fills a field for a person to edit; nothing is sent or published by itself.
          {llmOn
            ? ""
            : " Drafting is off on this installation until the administrator sets LLM_BASE_URL and LLM_MODEL."}
        </p>
      }
    >
      <TenantForm tenantId={tenantId} className="mt-4 space-y-3">
        <label htmlFor="voice-notes" className="block text-sm font-semibold">
          Voice notes
        </label>
        <TextArea
          id="voice-notes"
          name="voiceNotes"
          rows={6}
          maxLength={maxLength}
          defaultValue={notes}
          placeholder="Warm and direct, first person, short sentences. No jargon, no hashtags."
        />
        <SubmitButton name="intent" value="voice:save">
          Save voice notes
        </SubmitButton>
      </TenantForm>
    </SettingsPanel>
  );
}
