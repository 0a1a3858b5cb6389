import { useEditorState, type Editor } from '@tiptap/react';
import { BulletListIcon, NumberedListIcon } from '../../components/icons.tsx';

function ToolbarButton(props: {
  label: string;
  active: boolean;
  onClick: () => void;
  children: React.ReactNode;
}) {
  return (
    <button
      type="button"
      className={props.active ? 'planning-tool is-active' : 'planning-tool'}
      aria-label={props.label}
      title={props.label}
      aria-pressed={props.active}
      // Keeps the editor's selection: a mousedown on the button would otherwise take focus.
      onMouseDown={(event) => event.preventDefault()}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

/** The planning document's formatting buttons, each pressed while its format applies at the cursor. */
export function PlanningToolbar({ editor }: { editor: Editor }) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      h1: e.isActive('heading', { level: 1 }),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      strike: e.isActive('strike'),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
    }),
  });
  const chain = () => editor.chain().focus();
  return (
    <div className="planning-toolbar" role="toolbar" aria-label="Formatting">
      {([1, 2, 3] as const).map((level) => (
        <ToolbarButton
          key={level}
          label={`Heading ${level}`}
          active={state[`h${level}`]}
          onClick={() => chain().toggleHeading({ level }).run()}
        >
          {`H${level}`}
        </ToolbarButton>
      ))}
      <ToolbarButton label="Bold" active={state.bold} onClick={() => chain().toggleBold().run()}>
        <strong>B</strong>
      </ToolbarButton>
      <ToolbarButton label="Italic" active={state.italic} onClick={() => chain().toggleItalic().run()}>
        <em>I</em>
      </ToolbarButton>
      <ToolbarButton label="Strike" active={state.strike} onClick={() => chain().toggleStrike().run()}>
        <s>S</s>
      </ToolbarButton>
      <ToolbarButton
        label="Bullet list"
        active={state.bullet}
        onClick={() => chain().toggleBulletList().run()}
      >
        <BulletListIcon />
      </ToolbarButton>
      <ToolbarButton
        label="Numbered list"
        active={state.ordered}
        onClick={() => chain().toggleOrderedList().run()}
      >
        <NumberedListIcon />
      </ToolbarButton>
    </div>
  );
}
